/** An EventRecorder that keeps what the prober records, for assertions on reasons and messages. */
import type { EventRecorder, EventType } from '../../../client/record/interface.js';
import type { KubeObject } from '../../../machinery/meta.js';

export interface RecordedProbeEvent {
  readonly pod: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

export function newRecordingEvents(): EventRecorder & { readonly events: RecordedProbeEvent[] } {
  const events: RecordedProbeEvent[] = [];
  return {
    events,
    event(object: KubeObject, type: EventType, reason: string, message: string) {
      events.push({ pod: object.metadata.name ?? '', type, reason, message });
    },
  };
}
