/**
 * Zones and the eviction rate: nodes are grouped by their topology labels;
 * each zone's health (Normal, PartialDisruption, FullDisruption) decides how
 * fast the controller may put NoExecute taints on its failed nodes (a token
 * bucket per zone with a burst of one), as upstream's node lifecycle
 * controller does, so that a network partition does not empty a zone at once.
 */
import type { Node, NodeCondition } from 'kubernetes-types/core/v1.js';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** Upstream's GetZoneKey: region and zone labels (the deprecated failure-domain ones as fallback); '' when neither is set. */
export function zoneKey(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\x00:${zone}`;
}

/** Upstream's ComputeZoneState over the Ready conditions of a zone's nodes. */
export function computeZoneState(readyConditions: readonly (NodeCondition | undefined)[], unhealthyZoneThreshold: number): { notReady: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) {
    if (c?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

export interface EvictionRates {
  readonly nodeEvictionRate: number;
  readonly secondaryNodeEvictionRate: number;
  readonly largeClusterSizeThreshold: number;
}

/** Upstream's setLimiterInZone: the taint rate (per second) of a zone in a state. */
export function zoneEvictionRate(state: ZoneState, zoneSize: number, rates: EvictionRates): number {
  switch (state) {
    case 'PartialDisruption':
      return zoneSize > rates.largeClusterSizeThreshold ? rates.secondaryNodeEvictionRate : 0;
    default:
      return rates.nodeEvictionRate;
  }
}

/** A token bucket with a burst of one; a rate of 0 never accepts. Starts full. */
export class TokenBucket {
  private tokens = 1;
  private last: number;

  constructor(
    readonly qps: number,
    now: number,
  ) {
    this.last = now;
  }

  private refill(now: number): void {
    if (this.qps <= 0) return;
    this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  tryAccept(now: number): boolean {
    if (this.qps <= 0) return false;
    this.refill(now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Milliseconds until the next token (Infinity for a rate of 0). */
  msUntilToken(now: number): number {
    if (this.qps <= 0) return Infinity;
    this.refill(now);
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.qps) * 1000);
  }
}
