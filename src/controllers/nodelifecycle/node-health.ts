/**
 * What the node lifecycle controller remembers of each node's heartbeats
 * (upstream's nodeHealthMap): the last time, on the controller's own clock,
 * that it saw the node alive — its Ready condition's heartbeat changed or its
 * Lease in kube-node-lease was renewed. A node not seen alive for the grace
 * period (the startup grace period while it has never posted a Ready
 * condition) has its conditions set to Unknown.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeCondition } from 'kubernetes-types/core/v1.js';
import { formatTime } from '../../machinery/meta.js';
import { nodeCondition } from './node-taints.js';

/** The conditions the controller sets to Unknown when the kubelet goes silent (not NetworkUnavailable, which the control plane owns). */
const MONITORED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

interface HealthRecord {
  /** When the controller last saw the node alive (ms, controller clock). */
  probeTimestamp: number;
  /** The Ready condition's heartbeat and transition times last seen. */
  heartbeat: string | undefined;
  transition: string | undefined;
  hadReady: boolean;
  leaseRenewTime: string | undefined;
}

export interface GracePeriods {
  readonly nodeMonitorGracePeriodMs: number;
  readonly nodeStartupGracePeriodMs: number;
}

export class NodeHealthTracker {
  private readonly records = new Map<string, HealthRecord>();

  constructor(private readonly grace: GracePeriods) {}

  forget(name: string): void {
    this.records.delete(name);
  }

  has(name: string): boolean {
    return this.records.has(name);
  }

  names(): string[] {
    return [...this.records.keys()];
  }

  /** Treat every node as just seen alive (on leaving full disruption, as upstream does). */
  resetProbes(now: number): void {
    for (const record of this.records.values()) record.probeTimestamp = now;
  }

  /**
   * Record what the node and its lease show now; true when the node has not
   * been seen alive within its grace period.
   */
  observe(node: Node, lease: Lease | undefined, now: number): boolean {
    const name = node.metadata?.name ?? '';
    const ready = nodeCondition(node, 'Ready');
    let record = this.records.get(name);
    if (record === undefined) {
      // A node that never posted status gets the startup grace period from its creation.
      const created = Date.parse(node.metadata?.creationTimestamp ?? '');
      const probe = ready === undefined && !Number.isNaN(created) ? Math.min(now, created) : now;
      record = { probeTimestamp: probe, heartbeat: ready?.lastHeartbeatTime, transition: ready?.lastTransitionTime, hadReady: ready !== undefined, leaseRenewTime: undefined };
      this.records.set(name, record);
    } else if (ready !== undefined && (!record.hadReady || record.heartbeat !== ready.lastHeartbeatTime)) {
      record.probeTimestamp = now;
    } else if (ready === undefined && record.hadReady) {
      // The Ready condition was removed: start over, as upstream does.
      record.probeTimestamp = now;
    }
    record.hadReady = ready !== undefined;
    record.heartbeat = ready?.lastHeartbeatTime;
    record.transition = ready?.lastTransitionTime;
    const renew = lease?.spec?.renewTime;
    if (renew !== undefined && renew !== null && (record.leaseRenewTime === undefined || Date.parse(renew) > Date.parse(record.leaseRenewTime))) {
      record.leaseRenewTime = renew;
      record.probeTimestamp = now;
    }
    const gracePeriod = ready === undefined ? this.grace.nodeStartupGracePeriodMs : this.grace.nodeMonitorGracePeriodMs;
    return now > record.probeTimestamp + gracePeriod;
  }
}

/**
 * The node's conditions with the monitored ones set to Unknown (reason
 * NodeStatusUnknown, or NodeStatusNeverUpdated for one the kubelet never
 * posted); undefined when nothing changes.
 */
export function unknownConditions(node: Node, now: Date): NodeCondition[] | undefined {
  const conditions = (node.status?.conditions ?? []).map((c) => ({ ...c }));
  let changed = false;
  for (const type of MONITORED_CONDITIONS) {
    const current = conditions.find((c) => c.type === type);
    if (current === undefined) {
      conditions.push({
        type,
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        ...(node.metadata?.creationTimestamp !== undefined ? { lastHeartbeatTime: node.metadata.creationTimestamp } : {}),
        lastTransitionTime: formatTime(now),
      });
      changed = true;
    } else if (current.status !== 'Unknown') {
      current.status = 'Unknown';
      current.reason = 'NodeStatusUnknown';
      current.message = 'Kubelet stopped posting node status.';
      current.lastTransitionTime = formatTime(now);
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}
