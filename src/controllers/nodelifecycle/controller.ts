/**
 * The node lifecycle controller (upstream's `nodelifecycle`, Events from
 * `node-controller`). Every --node-monitor-period it looks at every node:
 *
 * 1. Health: a node whose kube-node-lease Lease has not been renewed and whose
 *    Ready heartbeat has not moved within --node-monitor-grace-period (the
 *    startup grace period while it never posted Ready) gets its Ready,
 *    MemoryPressure, DiskPressure and PIDPressure conditions set to Unknown
 *    ("Kubelet stopped posting node status.").
 * 2. Zones: nodes are grouped by topology zone; a zone's share of unready
 *    nodes sets how fast NoExecute taints may be added there (a token bucket
 *    per zone: --node-eviction-rate, --secondary-node-eviction-rate above
 *    --unhealthy-zone-threshold in a cluster larger than
 *    --large-cluster-size-threshold, none in a partially disrupted small
 *    one); when every zone is fully down the controller assumes it is the one
 *    cut off and stops tainting altogether (and lifts the NoExecute taints).
 * 3. Taints: Ready=Unknown → node.kubernetes.io/unreachable, Ready=False →
 *    node.kubernetes.io/not-ready, both NoSchedule (at once) and NoExecute
 *    (rate-limited); the pressure conditions and spec.unschedulable give
 *    their NoSchedule taints; all are lifted once the node is Ready again.
 *    Pods leave tainted nodes through the taint eviction controller.
 * 4. Pods on a node that is not Ready are marked Ready=False.
 *
 * It is one reconcile key (`monitor`) that reads everything from informers
 * and asks to run again after the monitor period, or sooner when a zone's
 * next token is due; a failed write about one node is logged and tried again
 * in the next pass.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { NodeCondition, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { LEASES, NODES, PODS } from '../../client/rest/resources.js';
import { deepCopy, formatTime, jsonEqual, type KubeObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition, ControllerManagerOptions } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { NodeHealthTracker, unknownConditions } from './node-health.js';
import {
  ensurePodNodeNameIndex,
  hasTaint,
  nodeCondition,
  noExecuteKeyFor,
  POD_NODE_NAME_INDEX,
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
  wantedNoScheduleKeys,
  withControllerTaints,
  type NodeObject,
} from './node-taints.js';
import { computeZoneState, TokenBucket, zoneEvictionRate, zoneKey, type ZoneState } from './zones.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Nodes with this label are left out of zone health (upstream's LabelNodeExcludeDisruption). */
const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';
export const MONITOR_KEY = 'monitor';

type PodObject = KubeObject & Pod;
type LeaseObject = KubeObject & Lease;

export type NodeLifecycleOptions = Pick<
  ControllerManagerOptions,
  | 'nodeMonitorGracePeriodMs'
  | 'nodeMonitorPeriodMs'
  | 'nodeStartupGracePeriodMs'
  | 'nodeEvictionRate'
  | 'secondaryNodeEvictionRate'
  | 'unhealthyZoneThreshold'
  | 'largeClusterSizeThreshold'
>;

export interface NodeLifecycleDeps {
  readonly nodes: Indexer<NodeObject>;
  /** Leases of kube-node-lease, by `kube-node-lease/NAME`. */
  readonly leases: Indexer<LeaseObject>;
  /** Pods, with the POD_NODE_NAME_INDEX. */
  readonly pods: Indexer<PodObject>;
  readonly client: Client;
  readonly recorder: EventRecorder;
  readonly options: NodeLifecycleOptions;
  /** The controller's clock (ms); tests move it. */
  readonly now?: () => number;
  /**
   * A write about one node failed: it is skipped and tried again next pass
   * (as upstream, so that one bad node never slows the monitoring of the
   * others with a growing backoff).
   */
  readonly onError?: (error: unknown, nodeName: string) => void;
}

interface Observed {
  node: NodeObject;
  ready: string | undefined;
}

export class NodeLifecycleController {
  private readonly now: () => number;
  private readonly health: NodeHealthTracker;
  /** Nodes seen, by name → uid (for the Registered/Removing Events). */
  private readonly known = new Map<string, string>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly limiters = new Map<string, TokenBucket>();
  /** Nodes waiting for their NoExecute taint, in the order they failed (upstream's zoneNoExecuteTainter queues). */
  private readonly taintQueue = new Set<string>();
  /** The Ready status each node had at the last pass (for the NodeNotReady Event on a transition). */
  private readonly lastReady = new Map<string, string | undefined>();

  constructor(private readonly deps: NodeLifecycleDeps) {
    this.now = deps.now ?? Date.now;
    this.health = new NodeHealthTracker(deps.options);
  }

  /** Zone states, for tests and logs. */
  zoneState(zone: string): ZoneState | undefined {
    return this.zoneStates.get(zone);
  }

  async monitor(): Promise<ReconcileResult> {
    const now = this.now();
    const nodes = this.deps.nodes.list();
    this.trackMembership(nodes);
    const observed: Observed[] = [];
    for (const node of nodes) {
      try {
        observed.push(await this.updateHealth(node, now));
      } catch (e: unknown) {
        this.deps.onError?.(e, node.metadata.name ?? '');
      }
    }
    const stopped = this.handleDisruption(observed, now);
    const noExecute = this.decideNoExecute(observed, stopped, now);
    for (const { node, ready } of observed) {
      try {
        await this.writeTaints(node, noExecute.get(node.metadata.name ?? '') ?? new Set(), now);
        await this.markPodsNotReady(node, ready, now);
      } catch (e: unknown) {
        this.deps.onError?.(e, node.metadata.name ?? '');
      }
    }
    return { requeueAfterMs: Math.max(1, Math.min(this.deps.options.nodeMonitorPeriodMs, noExecute.nextTokenMs)) };
  }

  private trackMembership(nodes: readonly NodeObject[]): void {
    const present = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      present.add(name);
      if (!this.known.has(name)) {
        this.known.set(name, node.metadata.uid ?? '');
        this.deps.recorder.event(node, 'Normal', 'RegisteredNode', `Registered Node ${name} in Controller`);
      }
    }
    for (const [name, uid] of this.known) {
      if (present.has(name)) continue;
      this.known.delete(name);
      this.health.forget(name);
      this.taintQueue.delete(name);
      this.lastReady.delete(name);
      this.deps.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid } }, 'Normal', 'RemovingNode', `Removing Node ${name} from Controller`);
    }
  }

  /** Step 1: the conditions go Unknown once the node has been silent for its grace period. */
  private async updateHealth(node: NodeObject, now: number): Promise<Observed> {
    const name = node.metadata.name ?? '';
    const lease = this.deps.leases.get(`${NODE_LEASE_NAMESPACE}/${name}`);
    let current = node;
    if (this.health.observe(node, lease, now)) {
      const conditions = unknownConditions(node, new Date(now));
      if (conditions !== undefined) {
        const copy = deepCopy(node);
        const updated: NodeObject = { ...copy, status: { ...copy.status, conditions } };
        current = await this.deps.client.resource<NodeObject>(NODES).updateStatus(updated);
      }
    }
    return { node: current, ready: nodeCondition(current, 'Ready')?.status };
  }

  private limiter(zone: string, now: number): TokenBucket {
    let limiter = this.limiters.get(zone);
    if (limiter === undefined) {
      limiter = new TokenBucket(this.deps.options.nodeEvictionRate, now);
      this.limiters.set(zone, limiter);
    }
    return limiter;
  }

  private setLimiter(zone: string, size: number, state: ZoneState, now: number): void {
    const qps = zoneEvictionRate(state, size, this.deps.options);
    if (this.limiters.get(zone)?.qps !== qps) this.limiters.set(zone, new TokenBucket(qps, now));
  }

  /**
   * Step 2, upstream's handleDisruption: new zone states and their rates.
   * Returns true while every zone is fully disrupted (no NoExecute taints at all).
   */
  private handleDisruption(observed: readonly Observed[], now: number): boolean {
    const byZone = new Map<string, NodeCondition[]>();
    for (const { node, ready } of observed) {
      if (ready === undefined || node.metadata.labels?.[EXCLUDE_DISRUPTION_LABEL] !== undefined) continue;
      const zone = zoneKey(node);
      const list = byZone.get(zone) ?? [];
      list.push({ type: 'Ready', status: ready });
      byZone.set(zone, list);
    }
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of byZone) {
      const { state } = computeZoneState(conditions, this.deps.options.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) {
        this.zoneStates.set(zone, 'Initial');
        this.limiter(zone, now);
      }
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!byZone.has(zone)) {
        this.zoneStates.delete(zone);
        this.limiters.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') allWasFullyDisrupted = false;
    }
    if (!allAreFullyDisrupted || !allWasFullyDisrupted) {
      if (allAreFullyDisrupted) {
        for (const zone of this.zoneStates.keys()) {
          this.limiters.set(zone, new TokenBucket(0, now));
          this.zoneStates.set(zone, 'FullDisruption');
        }
        this.taintQueue.clear();
        return true;
      }
      if (allWasFullyDisrupted && this.zoneStates.size > 0) {
        // Leaving: every node gets a fresh grace period, every zone its rate back.
        this.health.resetProbes(now);
        for (const zone of this.zoneStates.keys()) {
          const state = newStates.get(zone) ?? 'Normal';
          this.setLimiter(zone, byZone.get(zone)?.length ?? 0, state, now);
          this.zoneStates.set(zone, state);
        }
        return false;
      }
      for (const [zone, state] of this.zoneStates) {
        const next = newStates.get(zone) ?? state;
        if (next === state) continue;
        this.setLimiter(zone, byZone.get(zone)?.length ?? 0, next, now);
        this.zoneStates.set(zone, next);
      }
    }
    return this.zoneStates.size > 0 && [...this.zoneStates.values()].every((s) => s === 'FullDisruption');
  }

  /** Step 3 (NoExecute): which NoExecute taint each node gets now; new ones only as the zone's bucket allows. */
  private decideNoExecute(observed: readonly Observed[], stopped: boolean, now: number): Map<string, Set<string>> & { nextTokenMs: number } {
    const decided = new Map<string, Set<string>>() as Map<string, Set<string>> & { nextTokenMs: number };
    decided.nextTokenMs = Infinity;
    const byName = new Map(observed.map((o) => [o.node.metadata.name ?? '', o]));
    for (const { node, ready } of observed) {
      const name = node.metadata.name ?? '';
      const key = ready === undefined ? undefined : noExecuteKeyFor(ready);
      const taints = node.spec?.taints;
      if (stopped || key === undefined) {
        this.taintQueue.delete(name);
        decided.set(name, new Set());
      } else if (hasTaint(taints, key, 'NoExecute')) {
        this.taintQueue.delete(name);
        decided.set(name, new Set([key]));
      } else if (hasTaint(taints, key === TAINT_NOT_READY ? TAINT_UNREACHABLE : TAINT_NOT_READY, 'NoExecute')) {
        // Already tainted the other way: swap at once, as upstream does.
        this.taintQueue.delete(name);
        decided.set(name, new Set([key]));
      } else {
        this.taintQueue.add(name);
        decided.set(name, new Set());
      }
    }
    for (const name of [...this.taintQueue]) {
      const entry = byName.get(name);
      if (entry === undefined) {
        this.taintQueue.delete(name);
        continue;
      }
      const limiter = this.limiter(zoneKey(entry.node), now);
      if (limiter.tryAccept(now)) {
        this.taintQueue.delete(name);
        decided.set(name, new Set([noExecuteKeyFor(entry.ready)!]));
      } else {
        decided.nextTokenMs = Math.min(decided.nextTokenMs, limiter.msUntilToken(now));
      }
    }
    return decided;
  }

  /** Step 3 (write): the node's controller taints as decided, in one update when they change. */
  private async writeTaints(node: NodeObject, noExecute: ReadonlySet<string>, now: number): Promise<void> {
    const taints = withControllerTaints(node.spec?.taints, { noSchedule: wantedNoScheduleKeys(node), noExecute }, new Date(now));
    if (jsonEqual(taints, node.spec?.taints ?? [])) return;
    const updated = deepCopy(node);
    updated.spec = { ...updated.spec, taints };
    if (taints.length === 0) delete updated.spec.taints;
    await this.deps.client.resource<NodeObject>(NODES).update(updated);
  }

  /** Step 4, upstream's MarkPodsNotReady: the node's pods are not ready while it is not. */
  private async markPodsNotReady(node: NodeObject, ready: string | undefined, now: number): Promise<void> {
    const name = node.metadata.name ?? '';
    const before = this.lastReady.get(name);
    this.lastReady.set(name, ready);
    if (ready === undefined || ready === 'True') return;
    if (before === 'True') this.deps.recorder.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
    const pods = this.deps.client.resource<PodObject>(PODS);
    for (const pod of this.deps.pods.byIndex(POD_NODE_NAME_INDEX, name)) {
      const condition = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (condition === undefined || condition.status === 'False') continue;
      const copy = deepCopy(pod);
      const next: PodCondition = { ...condition, status: 'False', lastTransitionTime: formatTime(new Date(now)) };
      const updated: PodObject = { ...copy, status: { ...copy.status, conditions: (copy.status?.conditions ?? []).map((c) => (c.type === 'Ready' ? next : c)) } };
      try {
        await pods.updateStatus(updated);
      } catch (e: unknown) {
        if (isNotFound(e)) continue;
        throw e;
      }
      this.deps.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
    }
  }
}

/** A change the monitor should look at before its next period: a node's conditions, taints or schedulability. */
function nodeHealthChanged(old: NodeObject, node: NodeObject): boolean {
  const statuses = (n: NodeObject): string[] => (n.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
  return !jsonEqual(statuses(old), statuses(node)) || old.spec?.unschedulable !== node.spec?.unschedulable;
}

export const nodeLifecycleController: ControllerDefinition = {
  name: 'nodelifecycle',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const nodes = ctx.informers.informerFor<NodeObject>(NODES);
    const leases = ctx.informers.informerFor<LeaseObject>(LEASES, { namespace: NODE_LEASE_NAMESPACE });
    const pods = ctx.informers.informerFor<PodObject>(PODS);
    ensurePodNodeNameIndex(pods);
    const log = ctx.logger.child({ controller: 'nodelifecycle' });
    const controller = new NodeLifecycleController({
      nodes: nodes.indexer,
      leases: leases.indexer,
      pods: pods.indexer,
      client: ctx.client,
      recorder: ctx.events.recorderFor('node-controller'),
      options: ctx.options,
      onError: (err, node) => log.warn({ err, node }, 'node lifecycle: failed to update node; will retry in the next pass'),
    });
    const loop = startReconcileLoop(ctx, { name: 'nodelifecycle', workers: 1, reconcile: () => controller.monitor() });
    nodes.addEventHandler({
      onAdd: () => loop.enqueue(MONITOR_KEY),
      onUpdate: (old, node) => {
        if (nodeHealthChanged(old, node)) loop.enqueue(MONITOR_KEY);
      },
      onDelete: () => loop.enqueue(MONITOR_KEY),
    });
    loop.enqueue(MONITOR_KEY);
  },
};
