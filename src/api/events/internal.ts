/**
 * The internal form of an Event (upstream's `core.Event`): the one shape both
 * core/v1 Event and events.k8s.io/v1 Event convert through, and the one the
 * event strategy, validation, field selectors and table read. Its field names
 * are upstream's internal ones: the core/v1 names, except that the reporting
 * component is `reportingController` (core/v1 calls it `reportingComponent`,
 * events.k8s.io/v1 `reportingController`), which is also the name validation
 * errors use.
 */
import type { EventSeries, EventSource, ObjectReference } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from '../../machinery/meta.js';

export interface InternalEvent {
  metadata: ObjectMeta;
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  reportingController?: string;
  reportingInstance?: string;
  [field: string]: unknown;
}

/** The name the internal form is registered under. */
export const INTERNAL_EVENT = 'core.Event';
