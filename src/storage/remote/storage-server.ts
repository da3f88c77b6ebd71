/**
 * Serves a Storage to another process over a stream socket: the process that
 * holds the store (the sqlite file can have only one) answers its API server
 * workers' calls and streams their watches (`k8ts apiserver --workers N`).
 *
 * Requests (client → server), each with an `id` the answer repeats: the
 * binary GET, CREATE and UPDATE frames (frames.ts), and JSON frames
 *   {op:'list', prefix, options} {op:'delete', key, rev?} {op:'rev'}
 *   {op:'compact', revision} {op:'watch', prefix, from} {op:'cancel'} {op:'progress'}
 * Answers: a create's or update's WRITTEN (its revisions, without the value
 * the client sent), a get's GOT, the others' JSON {id, r: result}; a failed
 * call's JSON {id, e: error}. A watch's items are PUT and DELETE frames,
 *   JSON {w: id, t:'PROGRESS', rev} and last JSON {w: id, end: true, e?: error}.
 */
import type { Socket } from 'node:net';
import type { ListOptions, Storage, StorageWatch } from '../interface.js';
import { wireError, wireKeyValue } from './codec.js';
import { FrameReader } from './frames.js';
import { MessageWriter, readMessage, type Message } from './messages.js';

/** Serve `storage` on one connected socket until it closes; watches it opened are cancelled then. */
export function serveStorage(storage: Storage, socket: Socket): void {
  const out = new MessageWriter(socket);
  const watches = new Map<number, StorageWatch>();
  const reader = new FrameReader((frame) => handle(readMessage(frame)));
  socket.on('data', (chunk: Buffer) => reader.push(chunk));
  socket.on('error', () => {});
  socket.on('close', () => {
    for (const w of watches.values()) w.cancel();
    watches.clear();
  });

  const failed = (id: number, e: unknown): void => {
    const blobs: Uint8Array[] = [];
    out.json({ id, e: wireError(e, blobs) }, blobs);
  };
  const answer = (id: number, work: Promise<(blobs: Uint8Array[]) => unknown>): void => {
    work.then(
      (encode) => {
        const blobs: Uint8Array[] = [];
        const r = encode(blobs);
        out.json({ id, r }, blobs);
      },
      (e: unknown) => failed(id, e),
    );
  };

  function handle(m: Message): void {
    switch (m.kind) {
      case 'get':
        storage.get(m.key).then((kv) => out.got(m.id, kv), (e: unknown) => failed(m.id, e));
        return;
      case 'create':
        storage.create(m.key, m.value).then((kv) => out.written(m.id, kv), (e: unknown) => failed(m.id, e));
        return;
      case 'update':
        storage.update(m.key, m.value, m.expectedModRevision).then((kv) => out.written(m.id, kv), (e: unknown) => failed(m.id, e));
        return;
      case 'json':
        return handleJson(m.header);
      default:
        return; // answers and watch events: a client sends none
    }
  }

  function handleJson(header: Record<string, unknown>): void {
    const id = header.id as number;
    switch (header.op) {
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
      default:
        return failed(id, new Error(`unknown operation ${String(header.op)}`));
    }
  }

  function startWatch(id: number, prefix: string, from: number): void {
    let watch: StorageWatch;
    try {
      watch = storage.watch(prefix, from);
    } catch (e: unknown) {
      const b: Uint8Array[] = [];
      out.json({ w: id, end: true, e: wireError(e, b) }, b);
      return;
    }
    watches.set(id, watch);
    void (async () => {
      try {
        for await (const item of watch) {
          if (item.type === 'PROGRESS') out.json({ w: id, t: 'PROGRESS', rev: item.revision });
          else out.event(id, item);
        }
        out.json({ w: id, end: true });
      } catch (e: unknown) {
        const b: Uint8Array[] = [];
        out.json({ w: id, end: true, e: wireError(e, b) }, b);
      } finally {
        watches.delete(id);
      }
    })();
  }
}
