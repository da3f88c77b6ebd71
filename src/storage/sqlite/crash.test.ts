import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { eventRevision, type StorageEvent } from '../interface.js';
import { takeEvents } from '../testing/conformance.js';
import { openSqliteStorage } from './sqlite-storage.js';
import { LAST_REVISION_SQL } from './schema.js';

/** The compiled child, beside this compiled test. */
const WRITER = fileURLToPath(new URL('./testing/crash-writer.js', import.meta.url));

/** Acknowledged writes to collect before killing the child. */
const ACKS_BEFORE_KILL = 400;

interface Ack {
  readonly key: string;
  readonly revision: number;
  readonly value: string;
}

let dir: string | undefined;
after(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/**
 * Run the crash writer on `path`, SIGKILL it once it has acknowledged
 * ACKS_BEFORE_KILL writes, and return every acknowledged write it printed.
 */
async function runAndKill(path: string, run: string): Promise<Ack[]> {
  const child = spawn(process.execPath, [WRITER, path, run], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks: Ack[] = [];
  let partial = '';
  let stderr = '';
  let killed = false;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!; // a line cut by the kill is not an acknowledgement
    for (const line of lines) {
      const [key, revision, value] = line.split(' ');
      acks.push({ key: key!, revision: Number(revision), value: value! });
    }
    if (!killed && acks.length >= ACKS_BEFORE_KILL) {
      killed = true;
      process.kill(child.pid!, 'SIGKILL'); // mid-stream: writes are in flight
    }
  });
  const deadline = setTimeout(() => {
    if (!killed) process.kill(child.pid!, 'SIGKILL');
  }, 60_000);
  const { signal } = await exited;
  clearTimeout(deadline);
  assert.ok(killed, `the writer stopped after ${acks.length} acknowledgements (signal ${String(signal)}): ${stderr}`);
  assert.equal(signal, 'SIGKILL', `writer exit: ${stderr}`);
  return acks;
}

it('after SIGKILL mid-stream, every acknowledged write is there and the log has no hole', async () => {
  dir = await mkdtemp(join(tmpdir(), 'k8ts-sqlite-crash-'));
  const path = join(dir, 'db', 'state.db');
  const acks: Ack[] = [];
  // Two crashes in a row: the second run writes on the file the first one left.
  for (const run of ['one', 'two']) acks.push(...(await runAndKill(path, run)));
  assert.ok(acks.length >= 2 * ACKS_BEFORE_KILL);

  const store = openSqliteStorage({ path, compactIntervalMs: 0 });
  let current: number;
  try {
    current = await store.currentRevision();
    const maxAcked = Math.max(...acks.map((a) => a.revision));
    assert.ok(current >= maxAcked, `current revision ${current} is below the acknowledged ${maxAcked}`);

    // The whole history, replayed from 0: one event per revision, 1..current.
    const watch = store.watch('/', 0);
    let events: StorageEvent[];
    try {
      events = await takeEvents(watch, current, 60_000);
    } finally {
      watch.cancel();
    }
    assert.deepEqual(
      events.map(eventRevision),
      Array.from({ length: current }, (_, i) => i + 1),
      'revisions 1..current, with no hole',
    );

    // Each acknowledged write is the event at its revision.
    for (const ack of acks) {
      const event = events[ack.revision - 1]!;
      assert.ok(event.type === 'PUT');
      assert.equal(event.kv.key, ack.key);
      assert.equal(Buffer.from(event.kv.value).toString(), ack.value);
      const now = await store.get(ack.key);
      assert.ok(now !== undefined && now.modRevision >= ack.revision, `${ack.key} lost its write at ${ack.revision}`);
    }

    // The replay is consistent: each prevKv is the key's previous event, and
    // folding the events gives the current state.
    const state = new Map<string, { value: string; createRevision: number; modRevision: number }>();
    for (const event of events) {
      assert.ok(event.type === 'PUT', 'the writer never deletes');
      const previous = state.get(event.kv.key);
      if (previous === undefined) {
        assert.equal(event.prevKv, undefined);
        assert.equal(event.kv.createRevision, event.kv.modRevision);
      } else {
        assert.ok(event.prevKv !== undefined);
        assert.equal(event.prevKv.modRevision, previous.modRevision);
        assert.equal(Buffer.from(event.prevKv.value).toString(), previous.value);
        assert.equal(event.kv.createRevision, previous.createRevision);
      }
      state.set(event.kv.key, {
        value: Buffer.from(event.kv.value).toString(),
        createRevision: event.kv.createRevision,
        modRevision: event.kv.modRevision,
      });
    }
    const listed = await store.list('/');
    assert.equal(listed.revision, current);
    assert.deepEqual(
      listed.items.map((kv) => [kv.key, Buffer.from(kv.value).toString(), kv.createRevision, kv.modRevision]),
      [...state.entries()]
        .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
        .map(([key, s]) => [key, s.value, s.createRevision, s.modRevision]),
    );
  } finally {
    await store.close();
  }

  // And directly in the log table: ids 1..current, without holes, and the last revision agrees.
  const db = new Database(path);
  try {
    const ids = (db.prepare('SELECT id FROM log ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    assert.deepEqual(ids, Array.from({ length: current }, (_, i) => i + 1));
    const last = db.prepare(LAST_REVISION_SQL).get() as { revision: number };
    assert.equal(last.revision, current);
  } finally {
    db.close();
  }
});
