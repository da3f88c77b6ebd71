/**
 * Serves a Storage to another process over a stream socket: the process that
 * holds the store (the sqlite file can have only one) answers its API server
 * workers' calls and streams their watches (`k8ts apiserver --workers N`).
 *
 * Requests (client → server), each with an `id` the answer repeats:
 *   {op:'get', key} {op:'list', prefix, options} {op:'create', key}+value
 *   {op:'update', key, rev}+value {op:'delete', key, rev?} {op:'rev'}
 *   {op:'compact', revision} {op:'watch', prefix, from} {op:'cancel'} {op:'progress'}
 * Answers: {id, r: result} or {id, e: error} (a create's or update's result
 * is its revisions, {c, m}, without the value the client sent); a watch's items are
 *   {w: id, t:'PUT', kv, prev?} {w: id, t:'DELETE', key, rev, prev}
 *   {w: id, t:'PROGRESS', rev} and last {w: id, end: true, e?: error}.
 */
import type { Socket } from 'node:net';
import { eventRevision, type KeyValue, type ListOptions, type Storage, type StorageWatch } from '../interface.js';
import { wireError, wireKeyValue } from './codec.js';
import { FrameReader, FrameWriter, type Frame } from './frames.js';

/** Serve `storage` on one connected socket until it closes; watches it opened are cancelled then. */
export function serveStorage(storage: Storage, socket: Socket): void {
  const out = new FrameWriter(socket);
  const watches = new Map<number, StorageWatch>();
  const reader = new FrameReader((frame) => handle(frame));
  socket.on('data', (chunk: Buffer) => reader.push(chunk));
  socket.on('error', () => {});
  socket.on('close', () => {
    for (const w of watches.values()) w.cancel();
    watches.clear();
  });

  const answer = (id: number, work: Promise<(blobs: Uint8Array[]) => unknown>): void => {
    work.then(
      (encode) => {
        const blobs: Uint8Array[] = [];
        const r = encode(blobs);
        out.send({ id, r }, blobs);
      },
      (e: unknown) => {
        const blobs: Uint8Array[] = [];
        out.send({ id, e: wireError(e, blobs) }, blobs);
      },
    );
  };
  // A write's answer leaves the value out: the client has the bytes it sent.
  const written = (kv: KeyValue) => () => ({ c: kv.createRevision, m: kv.modRevision });

  function handle({ header, blobs }: Frame): void {
    const id = header.id as number;
    switch (header.op) {
      case 'get':
        return answer(
          id,
          storage.get(header.key as string).then((kv) => (b: Uint8Array[]) => (kv === undefined ? null : wireKeyValue(kv, b))),
        );
      case 'list':
        return answer(
          id,
          storage.list(header.prefix as string, header.options as ListOptions).then((list) => (b: Uint8Array[]) => ({
            items: list.items.map((kv) => wireKeyValue(kv, b)),
            revision: list.revision,
            more: list.more,
            ...(list.count !== undefined ? { count: list.count } : {}),
          })),
        );
      case 'create':
        return answer(id, storage.create(header.key as string, valueOf(blobs)).then(written));
      case 'update':
        return answer(id, storage.update(header.key as string, valueOf(blobs), header.rev as number).then(written));
      case 'delete':
        return answer(
          id,
          storage.delete(header.key as string, header.rev as number | undefined).then((d) => (b: Uint8Array[]) => ({
            prev: wireKeyValue(d.prevKv, b),
            revision: d.revision,
          })),
        );
      case 'rev':
        return answer(id, storage.currentRevision().then((rev) => () => rev));
      case 'compact':
        return answer(id, storage.compact(header.revision as number).then(() => () => null));
      case 'watch':
        return startWatch(id, header.prefix as string, header.from as number);
      case 'cancel':
        watches.get(id)?.cancel();
        return;
      case 'progress':
        watches.get(id)?.requestProgress();
        return;
      default: {
        const b: Uint8Array[] = [];
        out.send({ id, e: wireError(new Error(`unknown operation ${String(header.op)}`), b) }, b);
      }
    }
  }

  function startWatch(id: number, prefix: string, from: number): void {
    let watch: StorageWatch;
    try {
      watch = storage.watch(prefix, from);
    } catch (e: unknown) {
      const b: Uint8Array[] = [];
      out.send({ w: id, end: true, e: wireError(e, b) }, b);
      return;
    }
    watches.set(id, watch);
    void (async () => {
      try {
        for await (const item of watch) {
          const b: Uint8Array[] = [];
          if (item.type === 'PROGRESS') out.send({ w: id, t: 'PROGRESS', rev: item.revision });
          else if (item.type === 'PUT') {
            const kv = wireKeyValue(item.kv, b);
            out.send({ w: id, t: 'PUT', kv, ...(item.prevKv !== undefined ? { prev: wireKeyValue(item.prevKv, b) } : {}) }, b);
          } else {
            const prev = wireKeyValue(item.prevKv, b);
            out.send({ w: id, t: 'DELETE', key: item.key, rev: eventRevision(item), prev }, b);
          }
        }
        out.send({ w: id, end: true });
      } catch (e: unknown) {
        const b: Uint8Array[] = [];
        out.send({ w: id, end: true, e: wireError(e, b) }, b);
      } finally {
        watches.delete(id);
      }
    })();
  }
}

function valueOf(blobs: readonly Uint8Array[]): Uint8Array {
  return blobs[0] ?? new Uint8Array(0);
}
