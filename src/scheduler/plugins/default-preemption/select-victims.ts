/**
 * The fewest pods to remove from one node so that the preemptor fits
 * (upstream's DefaultPreemption.SelectVictimsOnNode), on a copy of the node
 * and of the cycle state:
 * 1. remove every pod the preemptor may preempt (lower priority), telling the
 *    PreFilter plugins through their RemovePod extensions;
 * 2. if the preemptor still does not fit, the node is no candidate;
 * 3. otherwise put the pods back one at a time, most important first — those
 *    whose eviction would violate a PodDisruptionBudget before the others —
 *    and keep back (as victims) the ones without which it no longer fits.
 * Pod affinity of the preemptor to a victim is not considered, as upstream.
 */
import type { CycleState } from '../../framework/cycle-state.js';
import type { Framework } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodDisruptionBudget, SelectedVictims } from '../../framework/preemption/evaluator.js';
import { moreImportantPod, podPriority } from '../../framework/preemption/pod-priority.js';
import { Code, errorStatus, isSuccess, Status } from '../../framework/status.js';
import type { Pod, PodInfo } from '../../framework/types.js';
import { filterPodsWithPDBViolation } from './pdb-violation.js';

export const NO_VICTIMS_FOUND = 'No preemption victims found for incoming pod';

/** Whether `victim` may be preempted by `preemptor`: strictly lower priority. */
export function isPreemptionAllowed(victim: Pod, preemptor: Pod): boolean {
  return podPriority(victim) < podPriority(preemptor);
}

class SelectionError extends Error {}

export interface SelectVictimsRequest {
  readonly framework: Framework;
  /** A copy: changed here. */
  readonly state: CycleState;
  readonly pod: Pod;
  /** A copy: changed here. */
  readonly nodeInfo: NodeInfo;
  readonly pdbs: readonly PodDisruptionBudget[];
  /** For pods that have not started: ms since the epoch. */
  readonly now: number;
}

export function selectVictimsOnNode(request: SelectVictimsRequest): SelectedVictims {
  const { framework, state, pod, nodeInfo, pdbs, now } = request;
  const remove = (info: PodInfo): void => {
    if (!nodeInfo.removePod(info.pod)) throw new SelectionError(`no corresponding pod ${info.pod.metadata.name ?? ''} in pods of node ${nodeInfo.name}`);
    const status = framework.runPreFilterExtensionRemovePod(state, pod, info, nodeInfo);
    if (!isSuccess(status)) throw new SelectionError(status!.message());
  };
  const add = (info: PodInfo): void => {
    nodeInfo.addPod(info);
    const status = framework.runPreFilterExtensionAddPod(state, pod, info, nodeInfo);
    if (!isSuccess(status)) throw new SelectionError(status!.message());
  };
  const byImportance = (a: PodInfo, b: PodInfo): number => (moreImportantPod(a.pod, b.pod, now) ? -1 : moreImportantPod(b.pod, a.pod, now) ? 1 : 0);

  try {
    const potentialVictims = nodeInfo.pods.filter((info) => isPreemptionAllowed(info.pod, pod));
    for (const info of potentialVictims) remove(info);
    if (potentialVictims.length === 0) return { victims: [], numPDBViolations: 0, status: new Status(Code.UnschedulableAndUnresolvable, [NO_VICTIMS_FOUND]) };

    const fitsWithoutAll = framework.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
    if (!isSuccess(fitsWithoutAll)) return { victims: [], numPDBViolations: 0, status: fitsWithoutAll };

    potentialVictims.sort(byImportance);
    const { violating, nonViolating } = filterPodsWithPDBViolation(potentialVictims, pdbs);
    const victims: PodInfo[] = [];
    const reprieve = (info: PodInfo): boolean => {
      add(info);
      const fits = isSuccess(framework.runFilterPluginsWithNominatedPods(state, pod, nodeInfo));
      if (!fits) {
        remove(info);
        victims.push(info);
      }
      return fits;
    };
    let numPDBViolations = 0;
    for (const info of violating) if (!reprieve(info)) numPDBViolations++;
    for (const info of nonViolating) reprieve(info);
    if (violating.length > 0 && nonViolating.length > 0) victims.sort(byImportance);
    return { victims: victims.map((v) => v.pod), numPDBViolations, status: undefined };
  } catch (e: unknown) {
    return { victims: [], numPDBViolations: 0, status: errorStatus(e) };
  }
}
