/**
 * The watches of one store, multiplexed over one etcd Watch stream (as etcd's Go
 * client does): each watch gets a watch_id of our choosing, and etcd tags every
 * response with it. A thousand watches cost one HTTP/2 stream, not a thousand.
 *
 * Start revision: a watch "from R" asks etcd for events from R itself (not R+1)
 * and drops the events at R. etcd accepts a start revision equal to its compact
 * revision C, so asking for C-1+1 would let a watch from C-1 through although a
 * read at C-1 fails, and a deletion at exactly C is already gone from etcd's
 * history then (compaction drops tombstones at C). Asking for R makes "watch from
 * R" fail with Compacted exactly when "list at R" does. The cost: a watch starting
 * at the current revision is "unsynced" in etcd for one sync round (≤ 100 ms)
 * before live events flow; no event is lost meanwhile.
 */
import type { ClientDuplexStream, StatusObject } from '@grpc/grpc-js';
import { closed, compacted, StorageError, unavailable } from '../errors.js';
import type { StorageWatch } from '../interface.js';
import { WatchStream } from '../watch-stream.js';
import type { EtcdClient } from './etcd-client.js';
import { toNumber, toStorageEvent } from './etcd-convert.js';
import { toStorageError } from './etcd-errors.js';
import type { WatchRequest, WatchResponse } from './etcd-messages.js';

type WatchCall = ClientDuplexStream<WatchRequest, WatchResponse>;

interface ActiveWatch {
  readonly stream: WatchStream;
  readonly fromRevision: number;
  /** The stream the watch was created on. */
  readonly call: WatchCall;
}

export class EtcdWatchHub {
  private readonly client: EtcdClient;
  private call: WatchCall | undefined;
  /** Live watches by watch_id (as the decimal string etcd's responses carry). */
  private readonly watches = new Map<string, ActiveWatch>();
  private nextId = 1;
  private closed = false;

  constructor(client: EtcdClient) {
    this.client = client;
  }

  /** Number of live watches (for tests and metrics). */
  get size(): number {
    return this.watches.size;
  }

  /** Watch the keys in [key, range_end) for events after `fromRevision`. */
  watch(range: { key: Buffer; range_end: Buffer }, fromRevision: number): StorageWatch {
    const id = String(this.nextId++);
    // requestProgress needs nothing sent: the next progress notification answers it.
    const stream = new WatchStream(() => this.release(id));
    if (this.closed) {
      stream.fail(closed());
      return stream;
    }
    let call: WatchCall;
    try {
      call = this.ensureCall();
    } catch (e: unknown) {
      stream.fail(toStorageError(e, 'Watch'));
      return stream;
    }
    this.watches.set(id, { stream, fromRevision, call });
    call.write({
      create_request: {
        key: range.key,
        range_end: range.range_end,
        start_revision: Math.max(fromRevision, 1), // 0 would mean "from now"
        prev_kv: true,
        progress_notify: true,
        watch_id: id,
      },
    });
    return stream;
  }

  /** End every watch and the stream. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const call = this.call;
    this.call = undefined; // its CANCELLED status is then ignored
    const watches = [...this.watches.values()];
    this.watches.clear();
    for (const watch of watches) watch.stream.end();
    call?.cancel();
  }

  private ensureCall(): WatchCall {
    if (this.call !== undefined) return this.call;
    const call = this.client.watch();
    let failure: unknown;
    call.on('data', (response: WatchResponse) => this.onResponse(call, response));
    // grpc-js emits 'error' (for a non-OK status) and then 'status'; act on 'status'.
    call.on('error', (e: unknown) => {
      failure = e;
    });
    call.on('status', (status: StatusObject) => this.onStreamEnd(call, status, failure));
    this.call = call;
    return call;
  }

  /**
   * Progress comes from etcd's per-watch progress notifications (every watch
   * is created with progress_notify): etcd sends one on the watch's own channel,
   * in order with its events, once the watch is synced and has been quiet for
   * --experimental-watch-progress-notify-interval. A requestProgress is answered
   * by the next one. The stream-wide WatchProgressRequest is not used: etcd 3.4
   * before 3.4.25 answers it with the current revision even while a watch is
   * still sending older events (etcd-io/etcd#15220), which would let a cache
   * believe it is fresh when it is not.
   */
  private onProgress(response: WatchResponse, id: string): void {
    const watch = this.watches.get(id);
    if (watch === undefined) return; // watch_id -1 (a stream-wide answer) or a cancelled watch
    watch.stream.pushProgress(toNumber(response.header?.revision ?? '0', 'revision'));
  }

  /** A watch ended on our side (cancel, or failed by us): tell etcd if it still runs there. */
  private release(id: string): void {
    const watch = this.watches.get(id);
    if (watch === undefined) return;
    this.watches.delete(id);
    if (watch.call === this.call) watch.call.write({ cancel_request: { watch_id: id } });
  }

  private onResponse(call: WatchCall, response: WatchResponse): void {
    if (call !== this.call) return; // a stream already given up
    const id = response.watch_id;
    if (!response.created && !response.canceled && response.events.length === 0 && Number(response.compact_revision || '0') === 0) {
      this.onProgress(response, id);
      return;
    }
    const watch = this.watches.get(id);
    if (watch === undefined) return; // cancelled by us; etcd's confirmation or late events
    try {
      const compactRevision = toNumber(response.compact_revision, 'compact_revision');
      if (compactRevision > 0) {
        this.watches.delete(id); // etcd has dropped the watch already
        watch.stream.fail(compacted(watch.fromRevision, compactRevision));
        return;
      }
      if (response.canceled) {
        this.watches.delete(id);
        const reason = response.cancel_reason === '' ? 'no reason given' : response.cancel_reason;
        watch.stream.fail(unavailable(`etcd cancelled the watch: ${reason}`));
        return;
      }
      for (const message of response.events) {
        const revision = toNumber(message.kv?.mod_revision ?? '0', 'mod_revision');
        if (revision <= watch.fromRevision) continue; // the start revision itself (see above)
        const event = toStorageEvent(message);
        if (event === undefined) {
          watch.stream.fail(
            new StorageError(
              'Compacted',
              `etcd compacted the history at revision ${revision} while the watch was sending it`,
              { compactRevision: revision },
            ),
          );
          return;
        }
        watch.stream.push(event);
      }
    } catch (e: unknown) {
      watch.stream.fail(toStorageError(e, 'Watch'));
    }
  }

  private onStreamEnd(call: WatchCall, status: StatusObject, failure: unknown): void {
    if (call !== this.call) return; // closed by us, or already replaced
    this.call = undefined;
    const watches = [...this.watches.values()].filter((w) => w.call === call);
    for (const [id, watch] of this.watches) if (watch.call === call) this.watches.delete(id);
    // Whatever the status, a watch cannot go on without its stream: the caller re-watches.
    const reason = failure instanceof Error ? failure.message : `status ${status.code} ${status.details}`;
    const error = unavailable(`etcd watch stream ended: ${reason}`, failure);
    for (const watch of watches) watch.stream.fail(error);
  }
}
