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
import { FrameReader, FrameWriter, type Frame } from './frames.js';

interface Pending {
  readonly resolve: (frame: Frame) => void;
  readonly reject: (e: StorageError) => void;
}

export class RemoteStorage implements Storage {
  private readonly out: FrameWriter;
  private readonly pending = new Map<number, Pending>();
  private readonly watches = new Map<number, WatchStream>();
  private nextId = 1;
  private failure: StorageError | undefined;

  constructor(private readonly socket: Socket) {
    this.out = new FrameWriter(socket);
    const reader = new FrameReader((frame) => this.onFrame(frame));
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => this.fail(unavailable('the connection to the store closed')));
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.call({ op: 'get', key }).then(({ header, blobs }) =>
      header.r === null ? undefined : keyValueFromWire(header.r as WireKeyValue, blobs),
    );
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.call({ op: 'list', prefix, options }).then(({ header, blobs }) => {
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
    return this.call({ op: 'create', key }, [value]).then((frame) => written(key, value, frame));
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.call({ op: 'update', key, rev: expectedModRevision }, [value]).then((frame) => written(key, value, frame));
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    return this.call({ op: 'delete', key, ...(expectedModRevision !== undefined ? { rev: expectedModRevision } : {}) }).then(
      ({ header, blobs }) => {
        const r = header.r as { prev: WireKeyValue; revision: number };
        return { prevKv: keyValueFromWire(r.prev, blobs), revision: r.revision };
      },
    );
  }

  currentRevision(): Promise<number> {
    return this.call({ op: 'rev' }).then(({ header }) => header.r as number);
  }

  compact(revision: number): Promise<void> {
    return this.call({ op: 'compact', revision }).then(() => undefined);
  }

  watch(prefix: string, fromRevision: number): StorageWatch {
    const id = this.nextId++;
    const stream = new WatchStream(
      () => {
        if (this.watches.delete(id)) this.out.send({ op: 'cancel', id });
      },
      () => this.out.send({ op: 'progress', id }),
    );
    if (this.failure !== undefined) {
      stream.fail(this.failure);
      return stream;
    }
    this.watches.set(id, stream);
    this.out.send({ op: 'watch', id, prefix, from: fromRevision });
    return stream;
  }

  async close(): Promise<void> {
    this.fail(closed());
    this.socket.end();
  }

  private call(header: Record<string, unknown>, blobs: readonly Uint8Array[] = []): Promise<Frame> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Frame>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.out.send({ ...header, id }, blobs);
    });
  }

  private onFrame(frame: Frame): void {
    const { header, blobs } = frame;
    if (typeof header.w === 'number') return this.onWatchItem(header.w, frame);
    const id = header.id as number;
    const call = this.pending.get(id);
    if (call === undefined) return;
    this.pending.delete(id);
    if (header.e !== undefined) call.reject(errorFromWire(header.e as WireError, blobs));
    else call.resolve(frame);
  }

  private onWatchItem(id: number, { header, blobs }: Frame): void {
    const stream = this.watches.get(id);
    if (stream === undefined) return; // cancelled here: the server's items after that are dropped
    if (header.end === true) {
      this.watches.delete(id);
      if (header.e !== undefined) stream.fail(errorFromWire(header.e as WireError, blobs));
      else stream.end();
      return;
    }
    switch (header.t) {
      case 'PUT': {
        const prev = header.prev as WireKeyValue | undefined;
        stream.push({
          type: 'PUT',
          kv: keyValueFromWire(header.kv as WireKeyValue, blobs),
          ...(prev !== undefined ? { prevKv: keyValueFromWire(prev, blobs) } : {}),
        });
        return;
      }
      case 'DELETE':
        stream.push({ type: 'DELETE', key: header.key as string, revision: header.rev as number, prevKv: keyValueFromWire(header.prev as WireKeyValue, blobs) });
        return;
      case 'PROGRESS':
        stream.pushProgress(header.rev as number);
        return;
    }
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

/** A write's KeyValue: the value sent, at the revisions the answer gives. */
function written(key: string, value: Uint8Array, { header }: Frame): KeyValue {
  const r = header.r as { c: number; m: number };
  return { key, value, createRevision: r.c, modRevision: r.m };
}
