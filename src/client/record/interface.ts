/**
 * Events a component records about the objects it acts on, so that
 * `kubectl describe` shows what happened and why. A recorder writes core/v1
 * Events through the API server; repeats of the same (object, type, reason,
 * message) within ten minutes update one Event's count and lastTimestamp
 * instead of creating another, as upstream's event correlator does.
 * Recording never throws and never blocks the caller: a failed write is logged.
 */
import type { KubeObject } from '../../machinery/meta.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /**
   * reason: upstream's CamelCase reason (`SuccessfulCreate`); message: sentence, upstream's wording where it has one;
   * options.fieldPath: the part of the object the Event is about (involvedObject.fieldPath, e.g. `spec.containers{web}`).
   */
  event(object: KubeObject, type: EventType, reason: string, message: string, options?: EventOptions): void;
}

export interface EventOptions {
  readonly fieldPath?: string | undefined;
}

export interface EventRecorderFactory {
  /** A recorder whose Events name `component` as their source (reportingController). */
  recorderFor(component: string): EventRecorder;
}
