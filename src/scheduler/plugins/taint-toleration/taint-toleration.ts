/**
 * TaintToleration: Filter turns down nodes with a NoSchedule or NoExecute
 * taint the pod does not tolerate; Score prefers nodes with fewer
 * PreferNoSchedule taints the pod does not tolerate (counted, then reversed
 * by normalization so that fewer is better).
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import {
  MAX_NODE_SCORE,
  type EnqueueExtensions,
  type FilterPlugin,
  type NodeScore,
  type PluginFactory,
  type PreScorePlugin,
  type ScoreExtensions,
  type ScorePlugin,
} from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { unresolvable, type PluginStatus, type Status } from '../../framework/status.js';
import type { Node, Pod } from '../../framework/types.js';
import { defaultNormalizeScore } from '../helper/normalize-score.js';
import { findUntoleratedTaint, tolerationsTolerateTaint } from '../helper/taints.js';

export const NAME = 'TaintToleration';
const PRE_SCORE_KEY = `PreScore${NAME}`;

/** Upstream's reason for the first untolerated NoSchedule/NoExecute taint: `node(s) had untolerated taint {key: value}`. */
export function untoleratedTaintReason(taint: Taint): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

/** Per-cycle: the pod's tolerations that can tolerate PreferNoSchedule taints (effect empty or PreferNoSchedule). */
interface PreScoreState {
  readonly tolerations: readonly Toleration[];
}

function preferNoScheduleTolerations(pod: Pod): Toleration[] {
  return (pod.spec?.tolerations ?? []).filter((t) => (t.effect ?? '') === '' || t.effect === 'PreferNoSchedule');
}

function countIntolerablePreferNoSchedule(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[]): number {
  let count = 0;
  for (const taint of taints ?? []) if (taint.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, taint)) count++;
  return count;
}

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = NAME;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const taint = findUntoleratedTaint(nodeInfo.node?.spec?.taints, pod.spec?.tolerations ?? []);
    return taint === undefined ? undefined : unresolvable(untoleratedTaintReason(taint));
  }

  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus {
    if (nodes.length === 0) return undefined;
    state.write(PRE_SCORE_KEY, { tolerations: preferNoScheduleTolerations(pod) } satisfies PreScoreState);
    return undefined;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const tolerations = state.read<PreScoreState>(PRE_SCORE_KEY)?.tolerations ?? preferNoScheduleTolerations(pod);
    return countIntolerablePreferNoSchedule(nodeInfo.node?.spec?.taints, tolerations);
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint, label: 'NodeAdd|UpdateNodeTaint' },
        hint: (pod, oldObject, newObject) => {
          const tolerations = pod.spec?.tolerations ?? [];
          const after = newObject as Node | undefined;
          if (after === undefined) return QueueingHint.Skip;
          const before = oldObject as Node | undefined;
          const wasUntolerated = before === undefined || findUntoleratedTaint(before.spec?.taints, tolerations) !== undefined;
          const isUntolerated = findUntoleratedTaint(after.spec?.taints, tolerations) !== undefined;
          return wasUntolerated && !isUntolerated ? QueueingHint.Queue : QueueingHint.Skip;
        },
      },
      {
        event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodTolerations, label: 'UpdatePodTolerations' },
        hint: (pod, _old, newObject) => ((newObject as Pod | undefined)?.metadata.uid === pod.metadata.uid ? QueueingHint.Queue : QueueingHint.Skip),
      },
    ];
  }
}

export const newTaintToleration: PluginFactory = () => new TaintToleration();
