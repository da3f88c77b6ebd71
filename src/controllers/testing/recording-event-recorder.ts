/**
 * An EventRecorderFactory that keeps every Event in memory, for unit tests
 * to assert what a controller recorded (reason and message as upstream).
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { EventRecorder, EventRecorderFactory, EventType } from '../../client/record/interface.js';

export interface RecordedEvent {
  /** The recorder's component (`replicaset-controller`). */
  readonly component: string;
  readonly object: { readonly kind: string; readonly namespace: string; readonly name: string; readonly uid: string };
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

export function newRecordingEventRecorderFactory(events: RecordedEvent[]): EventRecorderFactory {
  return {
    recorderFor(component: string): EventRecorder {
      return {
        event(object: KubeObject, type: EventType, reason: string, message: string): void {
          events.push({
            component,
            object: {
              kind: object.kind ?? '',
              namespace: object.metadata.namespace ?? '',
              name: object.metadata.name ?? '',
              uid: object.metadata.uid ?? '',
            },
            type,
            reason,
            message,
          });
        },
      };
    },
  };
}
