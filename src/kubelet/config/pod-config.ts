/**
 * The merge of the pod sources (upstream's PodConfig): the latest set of each
 * source, and from them the one set the pod workers get — every API pod bound
 * to the node and every static pod. Mirror pods (API pods carrying
 * kubernetes.io/config.mirror, the API server's copies of static pods) are in
 * it too, as upstream's pod manager holds them: the workers never run them,
 * but write a static pod's status to its mirror pod. They are also set apart
 * for the mirror pod manager, which keeps them in step with the static pods.
 */
import { CONFIG_MIRROR_ANNOTATION, type Pod } from '../types.js';
import type { PodSourceName } from './interface.js';

export const isMirrorPod = (pod: Pod): boolean => pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;

export interface PodConfigState {
  /** What the pod workers get: API pods (mirror pods included) and static pods. */
  readonly pods: readonly Pod[];
  readonly staticPods: readonly Pod[];
  readonly mirrorPods: readonly Pod[];
  /** Which sources have delivered a set at least once. */
  readonly seen: ReadonlySet<PodSourceName>;
}

export interface PodConfig {
  set(source: PodSourceName, pods: readonly Pod[]): void;
  readonly state: PodConfigState;
}

export function newPodConfig(onChange: (state: PodConfigState) => void): PodConfig {
  const sets = new Map<PodSourceName, readonly Pod[]>();
  let state: PodConfigState = { pods: [], staticPods: [], mirrorPods: [], seen: new Set() };
  return {
    get state() {
      return state;
    },
    set(source, pods): void {
      sets.set(source, pods);
      const api = sets.get('api') ?? [];
      const staticPods = sets.get('file') ?? [];
      const mirrorPods = api.filter(isMirrorPod);
      const staticNames = new Set(staticPods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
      // An API pod that is not a mirror pod but has a static pod's name cannot be both: the static pod wins, as its source is the node's own.
      const apiPods = api.filter((p) => isMirrorPod(p) || !staticNames.has(`${p.metadata.namespace}/${p.metadata.name}`));
      state = { pods: [...apiPods, ...staticPods], staticPods, mirrorPods, seen: new Set(sets.keys()) };
      onChange(state);
    },
  };
}
