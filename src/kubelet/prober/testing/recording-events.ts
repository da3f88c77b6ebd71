/** An EventRecorder that keeps what the prober records, for assertions on reasons and messages. */
import type { EventOptions, EventRecorder, EventType } from '../../../client/record/interface.js';
import type { KubeObject } from '../../../machinery/meta.js';

export interface RecordedProbeEvent {
  readonly pod: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  /** The container's field path, when the Event is about one. */
  readonly fieldPath?: string;
}

export function newRecordingEvents(): EventRecorder & { readonly events: RecordedProbeEvent[] } {
  const events: RecordedProbeEvent[] = [];
  return {
    events,
    event(object: KubeObject, type: EventType, reason: string, message: string, options?: EventOptions) {
      const fieldPath = options?.fieldPath;
      events.push({ pod: object.metadata.name ?? '', type, reason, message, ...(fieldPath !== undefined ? { fieldPath } : {}) });
    },
  };
}
