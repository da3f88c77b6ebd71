/**
 * Whether a pod may preempt at all (upstream's
 * DefaultPreemption.PodEligibleToPreemptOthers): not with preemptionPolicy
 * Never; and not again while lower-priority victims it already preempted on
 * its nominated node are still terminating — unless the filters now call that
 * node UnschedulableAndUnresolvable, in which case it may look elsewhere.
 */
import type { NodeInfoLister } from '../../framework/interfaces.js';
import { DISRUPTION_TARGET, PREEMPTION_BY_SCHEDULER } from '../../framework/preemption/preempt-pod.js';
import { Code, type Status } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { isPreemptionAllowed } from './select-victims.js';

export const NOT_ELIGIBLE_PREEMPT_NEVER = 'not eligible due to preemptionPolicy=Never.';
export const NOT_ELIGIBLE_TERMINATING_POD = 'not eligible due to a terminating pod on the nominated node.';

/** A pod being deleted because the scheduler preempted it (DisruptionTarget=True, reason PreemptionByScheduler). */
export function podTerminatingByPreemption(pod: Pod): boolean {
  if (pod.metadata.deletionTimestamp === undefined || pod.metadata.deletionTimestamp === null) return false;
  const condition = pod.status?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
  return condition !== undefined && condition.status === 'True' && condition.reason === PREEMPTION_BY_SCHEDULER;
}

export function podEligibleToPreemptOthers(nodeInfos: NodeInfoLister, pod: Pod, nominatedNodeStatus: Status): { eligible: boolean; message: string } {
  if (pod.spec?.preemptionPolicy === 'Never') return { eligible: false, message: NOT_ELIGIBLE_PREEMPT_NEVER };
  const nominatedNodeName = pod.status?.nominatedNodeName ?? '';
  if (nominatedNodeName !== '') {
    if (nominatedNodeStatus.code === Code.UnschedulableAndUnresolvable) return { eligible: true, message: '' };
    const nodeInfo = nodeInfos.get(nominatedNodeName);
    if (nodeInfo !== undefined) {
      for (const info of nodeInfo.pods) {
        if (isPreemptionAllowed(info.pod, pod) && podTerminatingByPreemption(info.pod)) return { eligible: false, message: NOT_ELIGIBLE_TERMINATING_POD };
      }
    }
  }
  return { eligible: true, message: '' };
}
