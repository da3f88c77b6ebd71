/**
 * A Storage whose store lives in another process (storage-server.ts serves
 * it): an API server worker's view of the one sqlite store that the primary
 * process holds. Calls and watches are multiplexed on one stream socket; when
 * the socket closes, pending calls fail with Unavailable and watches end with
 * it (the API server's watch cache then re-lists, as after an etcd outage).
 */
import type { Socket } from 'node:net';
import { closed, unavailable, type StorageError } from '../errors.js';
import type { DeleteResult, KeyValue, ListOptions, ListResult, Storage, StorageWatch } from '../interface.js';
import { WatchStream } from '../watch-stream.js';
import { errorFromWire, keyValueFromWire, type WireError, type WireKeyValue } from './codec.js';
import { FrameReader } from './frames.js';
import { MessageWriter, readMessage, type JsonMessage, type Message } from './messages.js';

/**
 * A call waiting for its answer. The answer's kind decides what it resolves
 * with (see onMessage): a JSON answer its message, a get's answer its
 * KeyValue, a write's answer the KeyValue of the key and value kept here.
 */
interface Pending {
  readonly resolve: (answer: unknown) => void;
  readonly reject: (e: StorageError) => void;
  readonly key: string;
  readonly value: Uint8Array;
}

const NO_VALUE = new Uint8Array(0);

export class RemoteStorage implements Storage {
  private readonly out: MessageWriter;
  private readonly pending = new Map<number, Pending>();
  private readonly watches = new Map<number, WatchStream>();
  private nextId = 1;
  private failure: StorageError | undefined;

  constructor(socket: Socket) {
    this.out = new MessageWriter(socket);
    const reader = new FrameReader((frame) => this.onMessage(readMessage(frame)));
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => this.fail(unavailable('the connection to the store closed')));
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.call((id) => this.out.get(id, key));
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.callJson({ op: 'list', prefix, options }).then(({ header, blobs }) => {
      const r = header.r as { items: WireKeyValue[]; revision: number; more: boolean; count?: number };
      return {
        items: r.items.map((w) => keyValueFromWire(w, blobs)),
        revision: r.revision,
        more: r.more,
        ...(r.count !== undefined ? { count: r.count } : {}),
      };
    });
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.call((id) => this.out.create(id, key, value), key, value);
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.call((id) => this.out.update(id, key, value, expectedModRevision), key, value);
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    return this.callJson({ op: 'delete', key, ...(expectedModRevision !== undefined ? { rev: expectedModRevision } : {}) }).then(
      ({ header, blobs }) => {
        const r = header.r as { prev: WireKeyValue; revision: number };
        return { prevKv: keyValueFromWire(r.prev, blobs), revision: r.revision };
      },
    );
  }

  currentRevision(): Promise<number> {
    return this.callJson({ op: 'rev' }).then(({ header }) => header.r as number);
  }

  compact(revision: number): Promise<void> {
    return this.callJson({ op: 'compact', revision }).then(() => undefined);
  }

  watch(prefix: string, fromRevision: number): StorageWatch {
    const id = this.nextId++;
    const stream = new WatchStream(
      () => {
        if (this.watches.delete(id)) this.out.json({ op: 'cancel', id });
      },
      () => this.out.json({ op: 'progress', id }),
    );
    if (this.failure !== undefined) {
      stream.fail(this.failure);
      return stream;
    }
    this.watches.set(id, stream);
    this.out.json({ op: 'watch', id, prefix, from: fromRevision });
    return stream;
  }

  async close(): Promise<void> {
    this.fail(closed());
    this.out.close();
  }

  /** Send a request with `send(id)` and wait for its answer; T is what that answer resolves with (see Pending). */
  private call<T>(send: (id: number) => void, key = '', value: Uint8Array = NO_VALUE): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (answer: unknown) => void, reject, key, value });
      send(id);
    });
  }

  private callJson(header: Record<string, unknown>): Promise<JsonMessage> {
    return this.call((id) => this.out.json({ ...header, id }));
  }

  private onMessage(m: Message): void {
    switch (m.kind) {
      case 'written': {
        const call = this.answered(m.id);
        call?.resolve({ key: call.key, value: call.value, createRevision: m.createRevision, modRevision: m.modRevision });
        return;
      }
      case 'got':
        this.answered(m.id)?.resolve(m.kv);
        return;
      case 'event':
        this.watches.get(m.watch)?.push(m.event); // not there: cancelled here, the server's items after that are dropped
        return;
      case 'json': {
        const { header, blobs } = m;
        if (typeof header.w === 'number') return this.onWatchItem(header.w, m);
        const call = this.answered(header.id as number);
        if (header.e !== undefined) call?.reject(errorFromWire(header.e as WireError, blobs));
        else call?.resolve(m);
        return;
      }
      default:
        return; // requests: a server sends none
    }
  }

  /** The call `id`, no longer pending. */
  private answered(id: number): Pending | undefined {
    const call = this.pending.get(id);
    if (call !== undefined) this.pending.delete(id);
    return call;
  }

  private onWatchItem(id: number, { header, blobs }: JsonMessage): void {
    const stream = this.watches.get(id);
    if (stream === undefined) return; // cancelled here: the server's items after that are dropped
    if (header.end === true) {
      this.watches.delete(id);
      if (header.e !== undefined) stream.fail(errorFromWire(header.e as WireError, blobs));
      else stream.end();
      return;
    }
    if (header.t === 'PROGRESS') stream.pushProgress(header.rev as number);
  }

  /** The socket is gone (or the store closed here): fail pending calls, end watches, refuse later calls. */
  private fail(error: StorageError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
    const watches = [...this.watches.values()];
    this.watches.clear();
    // A store closed on purpose ends its watches normally; a lost connection ends them with the error.
    for (const w of watches) {
      if (error.code === 'Closed') w.end();
      else w.fail(error);
    }
  }
}
