/**
 * NodeAffinity: the pod's spec.nodeSelector and required node affinity
 * (Filter), its preferred node affinity (Score: sum of the weights of the
 * matching terms, normalized), and a profile's NodeAffinityArgs.addedAffinity
 * that every pod of the profile must also satisfy (and is scored by).
 * Selectors are parsed once per pod in PreFilter/PreScore.
 */
import type { NodeAffinity as NodeAffinitySpec, NodeSelector, PreferredSchedulingTerm } from 'kubernetes-types/core/v1.js';
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import {
  MAX_NODE_SCORE,
  type EnqueueExtensions,
  type FilterPlugin,
  type NodeScore,
  type PluginFactory,
  type PreFilterOutcome,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScoreExtensions,
  type ScorePlugin,
} from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { Status, errorStatus, skip, unresolvable, type PluginStatus } from '../../framework/status.js';
import type { Node, Pod } from '../../framework/types.js';
import { argsObject, optionalObject } from '../helper/args.js';
import { defaultNormalizeScore } from '../helper/normalize-score.js';
import {
  NODE_NAME_FIELD,
  parseNodeSelector,
  parsePreferredTerms,
  requiredNodeAffinity,
  type ParsedNodeSelector,
  type ParsedPreferredTerms,
  type RequiredNodeAffinity,
} from '../helper/node-selector.js';

export const NAME = 'NodeAffinity';
/** The pod's own nodeSelector/affinity does not match (upstream's ErrReasonPod). */
export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = 'pod affinity terms conflict';

const PRE_FILTER_KEY = `PreFilter${NAME}`;
const PRE_SCORE_KEY = `PreScore${NAME}`;

export interface NodeAffinityArgs {
  readonly addedAffinity?: NodeAffinitySpec;
}

interface PreScoreState {
  /** undefined when the pod has no preferred terms (only addedAffinity's count). */
  readonly preferred: ParsedPreferredTerms | undefined;
}

/** The pod's preferred terms, parsed; an Error status when they do not parse. */
function podPreferredTerms(pod: Pod): ParsedPreferredTerms | undefined | Status {
  const terms = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  if (terms === undefined) return undefined;
  const parsed = parsePreferredTerms(terms);
  const error = parsed.errorMessage();
  return error === undefined ? parsed : errorStatus(new Error(error));
}

/**
 * The nodes a required affinity can only match, when every term names nodes
 * with `matchFields metadata.name In`: the union over terms of the
 * intersection within each term. undefined when some term can match any node.
 */
export function nodeNamesFromTerms(selector: NodeSelector): Set<string> | undefined {
  let union: Set<string> | undefined;
  for (const term of selector.nodeSelectorTerms ?? []) {
    let names: Set<string> | undefined;
    for (const r of term.matchFields ?? []) {
      if (r.key !== NODE_NAME_FIELD || r.operator !== 'In') continue;
      const values = new Set(r.values ?? []);
      names = names === undefined ? values : new Set([...names].filter((n) => values.has(n)));
    }
    if (names === undefined) return undefined; // this term can match any node, and terms are ORed
    union ??= new Set();
    for (const n of names) union.add(n);
  }
  return union;
}

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = NAME;

  constructor(
    private readonly addedNodeSelector: ParsedNodeSelector | undefined,
    private readonly addedPreferred: ParsedPreferredTerms | undefined,
  ) {}

  preFilter(state: CycleState, pod: Pod): PreFilterOutcome {
    const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (required === undefined && this.addedNodeSelector === undefined && pod.spec?.nodeSelector === undefined) return { status: skip() };
    state.write(PRE_FILTER_KEY, requiredNodeAffinity(pod));
    if (required === undefined || (required.nodeSelectorTerms ?? []).length === 0) return {};
    const names = nodeNamesFromTerms(required);
    if (names === undefined) return {};
    // Every term names nodes, and none is left: no node can match.
    if (names.size === 0) return { status: unresolvable(ERR_REASON_CONFLICT) };
    return { result: { nodeNames: names } };
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const node = nodeInfo.node;
    if (this.addedNodeSelector !== undefined && !this.addedNodeSelector.matches(node)) return unresolvable(ERR_REASON_ENFORCED);
    const required = state.read<RequiredNodeAffinity>(PRE_FILTER_KEY) ?? requiredNodeAffinity(pod);
    return required.matches(node) ? undefined : unresolvable(ERR_REASON_POD);
  }

  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus {
    if (nodes.length === 0) return undefined;
    const preferred = podPreferredTerms(pod);
    if (preferred instanceof Status) return preferred;
    if (preferred === undefined && this.addedPreferred === undefined) return skip();
    state.write(PRE_SCORE_KEY, { preferred } satisfies PreScoreState);
    return undefined;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const node = nodeInfo.node;
    if (node === undefined) return 0;
    let count = this.addedPreferred?.score(node) ?? 0;
    const computed = state.read<PreScoreState>(PRE_SCORE_KEY);
    // Without PreScore (disabled), parse the pod's terms here.
    const preferred = computed !== undefined ? computed.preferred : podPreferredTerms(pod);
    if (preferred instanceof Status) return preferred;
    if (preferred !== undefined) count += preferred.score(node);
    return count;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel, label: 'NodeAdd|UpdateNodeLabel' },
        hint: (pod, oldObject, newObject) => this.isSchedulableAfterNodeChange(pod, oldObject as Node | undefined, newObject as Node | undefined),
      },
    ];
  }

  /** Queue only when the node (now) matches the pod and the profile's added affinity, and did not before. */
  private isSchedulableAfterNodeChange(pod: Pod, before: Node | undefined, after: Node | undefined): QueueingHint {
    if (after === undefined) return QueueingHint.Skip;
    if (this.addedNodeSelector !== undefined && !this.addedNodeSelector.matches(after)) return QueueingHint.Skip;
    const required = requiredNodeAffinity(pod);
    if (!required.matches(after)) return QueueingHint.Skip;
    if (before === undefined) return QueueingHint.Queue;
    return required.matches(before) ? QueueingHint.Skip : QueueingHint.Queue;
  }
}

/** Validates NodeAffinityArgs as upstream (ValidateNodeAffinityArgs) and parses addedAffinity once. */
export const newNodeAffinity: PluginFactory = (rawArgs) => {
  const args = argsObject(rawArgs, 'NodeAffinityArgs');
  const added = optionalObject(args, 'addedAffinity', 'addedAffinity') as NodeAffinitySpec | undefined;
  const required = added?.requiredDuringSchedulingIgnoredDuringExecution as NodeSelector | undefined;
  const preferredTerms = (added?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredSchedulingTerm[];
  const errors: string[] = [];
  let addedNodeSelector: ParsedNodeSelector | undefined;
  if (required !== undefined && required !== null) {
    if (!Array.isArray(required.nodeSelectorTerms)) throw new Error('addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: must be a list');
    addedNodeSelector = parseNodeSelector(required, 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution');
    errors.push(...addedNodeSelector.errors);
  }
  let addedPreferred: ParsedPreferredTerms | undefined;
  if (preferredTerms.length > 0) {
    addedPreferred = parsePreferredTerms(preferredTerms, 'addedAffinity.preferredDuringSchedulingIgnoredDuringExecution');
    errors.push(...addedPreferred.errors);
  }
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return new NodeAffinity(addedNodeSelector, addedPreferred);
};
