/**
 * Where the kubelet's pods come from (upstream's pod config): the API server
 * (pods with spec.nodeName = this node, through one watch with that
 * fieldSelector), the static pod manifests of --pod-manifest-path, and, while
 * the API server cannot be reached at start, the checkpoint of the last API
 * pods it saw (`<root>/checkpoints/`). The merged set goes to the pod workers.
 */
import type { Pod } from '../types.js';

export type PodSourceName = 'api' | 'file';

export interface PodSource {
  readonly name: PodSourceName;
  /** Calls `onPods` with the source's complete set every time it changes; the first call may come before start resolves. */
  start(onPods: (pods: readonly Pod[]) => void): Promise<void>;
  stop(): void;
}
