/**
 * The merge of the pod sources (upstream's PodConfig): the latest set of each
 * source, and from them the one desired set the pod workers get — the API
 * pods and the static pods — with the mirror pods (API pods carrying
 * kubernetes.io/config.mirror, the API server's copies of static pods) set
 * apart: they are never run, only kept in step with their static pods.
 */
import { CONFIG_MIRROR_ANNOTATION, type Pod } from '../types.js';
import type { PodSourceName } from './interface.js';

export const isMirrorPod = (pod: Pod): boolean => pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;

export interface PodConfigState {
  /** What the pod workers run: API pods (not mirror pods) and static pods. */
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
      const apiPods = api.filter((p) => !isMirrorPod(p) && !staticNames.has(`${p.metadata.namespace}/${p.metadata.name}`));
      state = { pods: [...apiPods, ...staticPods], staticPods, mirrorPods, seen: new Set(sets.keys()) };
      onChange(state);
    },
  };
}
