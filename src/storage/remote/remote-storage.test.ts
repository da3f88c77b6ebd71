import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isStorageError, StorageError } from '../errors.js';
import type { Storage } from '../interface.js';
import { openSqliteStorage } from '../sqlite/sqlite-storage.js';
import { runStorageConformance, takeEvents } from '../testing/conformance.js';
import { FrameReader } from './frames.js';
import { MessageWriter, readMessage, type JsonMessage, type Message } from './messages.js';
import { RemoteStorage } from './remote-storage.js';
import { serveStorage } from './storage-server.js';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const dec = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

interface Served {
  readonly remote: RemoteStorage;
  readonly store: Storage;
  readonly server: Server;
  readonly serverSockets: Socket[];
}

/** A sqlite store served on a unix socket in a fresh directory, and a RemoteStorage connected to it. */
async function servedStore(): Promise<Served> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-remote-'));
  dirs.push(dir);
  const store = openSqliteStorage({ path: join(dir, 'state.db'), compactIntervalMs: 0 });
  const serverSockets: Socket[] = [];
  const server = createServer((socket) => {
    serverSockets.push(socket);
    serveStorage(store, socket);
  });
  const path = join(dir, 'store.sock');
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const socket = connect(path);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { remote: new RemoteStorage(socket), store, server, serverSockets };
}

/** Close the client, then the server and the store behind it. */
async function shut(s: Served): Promise<void> {
  await s.remote.close();
  for (const socket of s.serverSockets) socket.destroy();
  await new Promise<void>((resolve) => s.server.close(() => resolve()));
  await s.store.close();
}

// Every rule of the Storage interface holds through the socket as it holds in-process.
runStorageConformance('remote (sqlite over a unix socket)', async () => {
  const s = await servedStore();
  const close = s.remote.close.bind(s.remote);
  s.remote.close = async () => {
    await close();
    for (const socket of s.serverSockets) socket.destroy();
    await new Promise<void>((resolve) => s.server.close(() => resolve()));
    await s.store.close();
  };
  return s.remote;
});

describe('remote storage', () => {
  it('carries a Conflict with the current value, as the store gave it', async () => {
    const s = await servedStore();
    try {
      const kv = await s.remote.create('/r/a', enc('one'));
      await s.remote.update('/r/a', enc('two'), kv.modRevision);
      await assert.rejects(s.remote.update('/r/a', enc('three'), kv.modRevision), (e: unknown) => {
        assert.ok(isStorageError(e, 'Conflict'));
        assert.equal(dec(e.current!.value), 'two');
        assert.equal(e.current!.modRevision, kv.modRevision + 1);
        return true;
      });
    } finally {
      await shut(s);
    }
  });

  it('fails pending calls and running watches with Unavailable when the connection drops, and refuses later calls', async () => {
    const s = await servedStore();
    try {
      const rev = await s.remote.currentRevision();
      const watch = s.remote.watch('/drop/', rev);
      await s.remote.create('/drop/a', enc('a'));
      assert.equal((await takeEvents(watch, 1)).length, 1);
      for (const socket of s.serverSockets) socket.destroy();
      const iterator = watch[Symbol.asyncIterator]();
      await assert.rejects(iterator.next(), (e: unknown) => isStorageError(e, 'Unavailable'));
      await assert.rejects(s.remote.get('/drop/a'), (e: unknown) => isStorageError(e, 'Unavailable'));
      const late = s.remote.watch('/drop/', rev)[Symbol.asyncIterator]();
      await assert.rejects(late.next(), (e: unknown) => isStorageError(e, 'Unavailable'));
    } finally {
      await shut(s);
    }
  });

  it('keeps values it hands out apart from the socket reads they came in (a kept value pins no read buffer)', async () => {
    const s = await servedStore();
    try {
      await Promise.all(Array.from({ length: 50 }, (_, i) => s.remote.create(`/pin/k${i}`, enc(`value-${i}`))));
      const list = await s.remote.list('/pin/');
      assert.equal(list.items.length, 50);
      for (const kv of list.items) assert.equal(kv.value.buffer.byteLength, kv.value.byteLength);
    } finally {
      await shut(s);
    }
  });
});

describe('storage server', () => {
  it("ends a watch with the store's error when the store's watch throws at once", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k8ts-remote-'));
    dirs.push(dir);
    const store = openSqliteStorage({ path: join(dir, 'state.db'), compactIntervalMs: 0 });
    // A backend that refuses a watch by throwing, not through the stream.
    const refusing: Storage = Object.assign(Object.create(store) as Storage, {
      watch: () => {
        throw new StorageError('Compacted', 'revision 1 has been compacted; the oldest available revision is 5', { compactRevision: 5 });
      },
    });
    const path = join(dir, 'store.sock');
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      serveStorage(refusing, socket);
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const socket = connect(path);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const remote = new RemoteStorage(socket);
    try {
      await assert.rejects(remote.watch('/w/', 1)[Symbol.asyncIterator]().next(), (e: unknown) => {
        assert.ok(isStorageError(e, 'Compacted'));
        assert.equal(e.compactRevision, 5);
        return true;
      });
    } finally {
      await remote.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    }
  });

  it('answers an operation it does not know with an Unavailable error naming it, and goes on serving', async () => {
    const s = await servedStore();
    const raw = connect((s.server.address() as string));
    try {
      await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
      const frames: Message[] = [];
      const reader = new FrameReader((f) => frames.push(readMessage(f)));
      raw.on('data', (chunk: Buffer) => reader.push(chunk));
      const out = new MessageWriter(raw);
      out.json({ op: 'truncate-everything', id: 7 });
      out.json({ op: 'rev', id: 8 });
      const deadline = Date.now() + 10_000;
      while (frames.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.ok(frames.every((f): f is JsonMessage => f.kind === 'json'));
      const byId = new Map(frames.map((f) => [f.header.id, f.header]));
      assert.deepEqual(byId.get(7)!.e, { code: 'Unavailable', message: 'remote store: unknown operation truncate-everything' });
      assert.equal(typeof byId.get(8)!.r, 'number');
    } finally {
      raw.destroy();
      await shut(s);
    }
  });
});
