/**
 * The value of the endpoints.kubernetes.io/last-change-trigger-time
 * annotation (upstream's TriggerTimeTracker): the earliest time of a change
 * that this sync is the first to publish. A pod's change time is its Ready
 * condition's lastTransitionTime and a Service's its creationTimestamp; only
 * times that moved since the Service's previous sync count, so a sync caused
 * by something else carries no annotation.
 */
import type { PodObject, ServiceObject } from './pod-rules.js';
import { podReadyTransitionTime } from './pod-rules.js';

export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

interface ServiceState {
  serviceTime: number | undefined;
  podTimes: Map<string, number>;
}

const parseTime = (text: string | null | undefined): number | undefined => {
  if (text === undefined || text === null || text === '') return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
};

/** RFC 3339 with fractional seconds only when there are any (Go's RFC3339Nano). */
export function formatTriggerTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}

export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  /** The trigger time of this sync, or undefined when nothing it publishes changed since the last one. Updates the tracker's state. */
  compute(serviceKey: string, service: ServiceObject, pods: readonly PodObject[]): number | undefined {
    const previous = this.states.get(serviceKey);
    const next: ServiceState = { serviceTime: parseTime(service.metadata.creationTimestamp), podTimes: new Map() };
    let min: number | undefined;
    const consider = (t: number): void => {
      min = min === undefined ? t : Math.min(min, t);
    };
    for (const pod of pods) {
      const t = parseTime(podReadyTransitionTime(pod));
      if (t === undefined) continue;
      const name = pod.metadata.name ?? '';
      next.podTimes.set(name, t);
      const before = previous?.podTimes.get(name);
      if (previous !== undefined && (before === undefined || before < t)) consider(t);
    }
    if (next.serviceTime !== undefined && next.serviceTime !== previous?.serviceTime) consider(next.serviceTime);
    this.states.set(serviceKey, next);
    return min;
  }

  forget(serviceKey: string): void {
    this.states.delete(serviceKey);
  }
}
