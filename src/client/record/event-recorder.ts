/**
 * The EventRecorderFactory of ./interface.ts over a {@link Client}: core/v1
 * Events as upstream's event broadcaster writes them.
 * - Recording only queues (bounded; when full the Event is dropped and
 *   logged, as upstream's broadcaster drops), and one writer drains the queue
 *   in order, so a component never waits on, nor fails by, an Event.
 * - A repeat of an Event (same source, involved object, type, reason and
 *   message) within ten minutes of the last is one merge patch of count,
 *   lastTimestamp and message on the Event first written, as upstream's
 *   event correlator does; if that Event is gone, it is created again.
 * - Events are named `<object name>.<hex nanoseconds>` and live in the
 *   object's namespace, or in `default` for a cluster-scoped object.
 */
import type { Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../machinery/logger.js';
import { formatTime, type KubeObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { Client, ResourceClient } from '../rest/interface.js';
import { EVENTS } from '../rest/resources.js';
import type { EventRecorder, EventRecorderFactory, EventType } from './interface.js';

export type EventObject = Event & KubeObject;

/** Repeats within this window are counted on one Event (upstream's 10 minutes). */
export const EVENT_AGGREGATION_WINDOW_MS = 10 * 60_000;

export interface EventRecorderOptions {
  readonly logger?: Logger;
  /** source.host and reportingInstance (upstream: the node name for a kubelet, empty for the controller manager). */
  readonly host?: string;
  /** Events waiting to be written before new ones are dropped (default 1000, upstream's queue length). */
  readonly maxQueued?: number;
  /** Aggregation entries kept (default 4096, upstream's cache size). */
  readonly maxCached?: number;
  readonly now?: () => number;
}

export interface EventSink extends EventRecorderFactory {
  /** Resolves once every Event recorded so far is written (or failed). */
  flush(): Promise<void>;
  /** Stop: Events recorded afterwards are dropped; resolves when the queue is drained. */
  shutdown(): Promise<void>;
}

interface Pending {
  readonly component: string;
  readonly involved: ObjectReference;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly at: number;
}

interface Seen {
  readonly name: string;
  readonly namespace: string;
  count: number;
  readonly firstTimestamp: string;
  lastAt: number;
}

export function involvedObjectOf(object: KubeObject, fieldPath?: string): ObjectReference {
  const m = object.metadata;
  const ref: ObjectReference = {};
  if (object.kind !== undefined) ref.kind = object.kind;
  if (m.namespace !== undefined && m.namespace !== '') ref.namespace = m.namespace;
  if (m.name !== undefined) ref.name = m.name;
  if (m.uid !== undefined) ref.uid = m.uid;
  if (object.apiVersion !== undefined) ref.apiVersion = object.apiVersion;
  if (m.resourceVersion !== undefined) ref.resourceVersion = m.resourceVersion;
  if (fieldPath !== undefined && fieldPath !== '') ref.fieldPath = fieldPath;
  return ref;
}

export function newEventRecorderFactory(client: Client, options: EventRecorderOptions = {}): EventSink {
  const events: ResourceClient<EventObject> = client.resource<EventObject>(EVENTS);
  const log = options.logger;
  const host = options.host ?? '';
  const maxQueued = options.maxQueued ?? 1000;
  const maxCached = options.maxCached ?? 4096;
  const now = options.now ?? Date.now;
  const queue: Pending[] = [];
  /** Aggregation key → the Event that counts it; a Map keeps insertion order, so the oldest is evicted first. */
  const seen = new Map<string, Seen>();
  let draining: Promise<void> | undefined;
  let stopped = false;
  let dropped = 0;
  let lastDropLogAt = 0;
  let sequence = 0;

  const uniqueSuffix = (at: number): string => (BigInt(at) * 1_000_000n + BigInt(sequence++ % 1_000_000)).toString(16);

  const keyOf = (p: Pending): string =>
    JSON.stringify([p.component, host, p.involved.kind, p.involved.apiVersion, p.involved.namespace, p.involved.name, p.involved.uid, p.involved.fieldPath, p.type, p.reason, p.message]);

  const remember = (key: string, entry: Seen): void => {
    seen.delete(key);
    seen.set(key, entry);
    if (seen.size > maxCached) seen.delete(seen.keys().next().value!);
  };

  const create = async (p: Pending, key: string, count: number, firstTimestamp: string): Promise<void> => {
    const namespace = p.involved.namespace ?? 'default';
    const name = `${p.involved.name ?? ''}.${uniqueSuffix(p.at)}`;
    const event: EventObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: p.involved,
      reason: p.reason,
      message: p.message,
      type: p.type,
      source: host === '' ? { component: p.component } : { component: p.component, host },
      firstTimestamp,
      lastTimestamp: formatTime(new Date(p.at)),
      count,
      reportingComponent: p.component,
      reportingInstance: host,
    };
    await events.create(event, { namespace });
    remember(key, { name, namespace, count, firstTimestamp, lastAt: p.at });
  };

  const write = async (p: Pending): Promise<void> => {
    const key = keyOf(p);
    const previous = seen.get(key);
    if (previous === undefined || p.at - previous.lastAt > EVENT_AGGREGATION_WINDOW_MS) {
      await create(p, key, 1, formatTime(new Date(p.at)));
      return;
    }
    const count = previous.count + 1;
    const lastTimestamp = formatTime(new Date(p.at));
    try {
      await events.patch(previous.name, 'merge', { count, lastTimestamp, message: p.message }, { namespace: previous.namespace });
      previous.count = count;
      previous.lastAt = p.at;
      remember(key, previous);
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
      seen.delete(key);
      await create(p, key, count, previous.firstTimestamp);
    }
  };

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const p = queue.shift()!;
      try {
        await write(p);
      } catch (e: unknown) {
        log?.warn({ err: e, reason: p.reason, object: `${p.involved.namespace ?? ''}/${p.involved.name ?? ''}` }, 'unable to write event');
      }
    }
  };

  const kick = (): void => {
    if (draining !== undefined) return;
    draining = drain().finally(() => {
      draining = undefined;
      if (queue.length > 0) kick();
    });
  };

  const enqueue = (p: Pending): void => {
    if (stopped) return;
    if (queue.length >= maxQueued) {
      dropped++;
      // Once it is full it tends to stay full: a line per dropped Event would cost more than the Events (at most one every 10 s, with the total).
      if (dropped === 1 || p.at - lastDropLogAt >= 10_000) {
        lastDropLogAt = p.at;
        log?.warn({ dropped, reason: p.reason }, 'event queue is full; dropping event');
      }
      return;
    }
    queue.push(p);
    kick();
  };

  const flush = async (): Promise<void> => {
    while (draining !== undefined) await draining;
  };

  return {
    recorderFor(component: string): EventRecorder {
      return {
        event(object, type, reason, message, options): void {
          try {
            enqueue({ component, involved: involvedObjectOf(object, options?.fieldPath), type, reason, message, at: now() });
          } catch (e: unknown) {
            log?.warn({ err: e, reason }, 'unable to record event');
          }
        },
      };
    },
    flush,
    async shutdown(): Promise<void> {
      stopped = true;
      await flush();
    },
  };
}
