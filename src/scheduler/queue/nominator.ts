/**
 * Pods nominated to nodes by preemption (upstream's nominator): Filter counts
 * a node's nominated pods of higher or equal priority as if they were already
 * there, so that the room preemption made is not taken by someone else while
 * the victims terminate.
 */
import type { PodNominator } from '../framework/interfaces.js';
import type { Pod, PodInfo } from '../framework/types.js';

export interface NominatorOptions {
  /**
   * The pod as the informer knows it now (upstream checks the pod lister):
   * a pod that is gone or already bound is not nominated. Without it, only the
   * given pod's own spec.nodeName is checked.
   */
  readonly currentPod?: (namespace: string, name: string) => Pod | undefined;
}

function nominatedNodeNameOf(pod: Pod): string {
  return pod.status?.nominatedNodeName ?? '';
}

export class Nominator implements PodNominator {
  private readonly podsByNode = new Map<string, PodInfo[]>();
  private readonly nodeByUid = new Map<string, string>();

  constructor(private readonly options: NominatorOptions = {}) {}

  addNominatedPod(podInfo: PodInfo, nodeName?: string): void {
    // Never keep two entries for one pod.
    this.deleteNominatedPodIfExists(podInfo.pod);
    const target = nodeName ?? nominatedNodeNameOf(podInfo.pod);
    if (target === '') return;
    const pod = podInfo.pod;
    const current = this.options.currentPod === undefined ? pod : this.options.currentPod(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    if (current === undefined || (current.spec?.nodeName ?? '') !== '') return;
    this.nodeByUid.set(podInfo.uid, target);
    let list = this.podsByNode.get(target);
    if (list === undefined) this.podsByNode.set(target, (list = []));
    list.push(podInfo);
  }

  deleteNominatedPodIfExists(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    const nodeName = this.nodeByUid.get(uid);
    if (nodeName === undefined) return;
    this.nodeByUid.delete(uid);
    const list = this.podsByNode.get(nodeName);
    if (list === undefined) return;
    const index = list.findIndex((p) => p.uid === uid);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.podsByNode.delete(nodeName);
  }

  updateNominatedPod(oldPod: Pod, newPodInfo: PodInfo): void {
    // An update that carries no nominatedNodeName (old nor new) keeps the
    // in-memory nomination, which may be newer than the pod's status; an update
    // that sets, changes or clears it follows the pod.
    let keep: string | undefined;
    if (nominatedNodeNameOf(oldPod) === '' && nominatedNodeNameOf(newPodInfo.pod) === '') keep = this.nodeByUid.get(oldPod.metadata.uid ?? '');
    this.deleteNominatedPodIfExists(oldPod);
    this.addNominatedPod(newPodInfo, keep);
  }

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    const list = this.podsByNode.get(nodeName);
    return list === undefined ? [] : [...list];
  }

  hasNominatedPods(): boolean {
    return this.podsByNode.size > 0;
  }

  /** The node a pod is nominated to, if any. */
  nominatedNodeFor(uid: string): string | undefined {
    return this.nodeByUid.get(uid);
  }
}
