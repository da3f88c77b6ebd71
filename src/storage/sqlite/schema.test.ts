/**
 * Opening a file of schema version 1 (value in both tables, AUTOINCREMENT log)
 * or 2 (the log indexed by name) migrates it to the current schema with its
 * history, revisions and compact revision intact.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { eventRevision, type StorageEvent } from '../interface.js';
import { takeEvents } from '../testing/conformance.js';
import { SCHEMA_VERSION } from './schema.js';
import { openSqliteStorage } from './sqlite-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-schema-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Version 1's tables, as its builds created them. */
const V1_SQL = `
CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, value BLOB);
CREATE INDEX log_name_id ON log (name, id);
CREATE TABLE current (name TEXT PRIMARY KEY, create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL, value BLOB NOT NULL);
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO meta (name, value) VALUES ('compact_revision', 0), ('schema_version', 1);
`;

/**
 * A version 1 file with the rows its store wrote for: create a (1), create b
 * (2), update a (3), create c (4), delete c (5), create d (6), update d (7),
 * then compaction to 3 (a's row 1 is gone).
 */
function writeV1(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(V1_SQL);
    const log = db.prepare('INSERT INTO log (name, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?)');
    const rows: [string, number, number, number, string | null][] = [
      ['/m/a', 0, 0, 0, 'a1'],
      ['/m/b', 0, 0, 0, 'b1'],
      ['/m/a', 0, 1, 1, 'a2'],
      ['/m/c', 0, 0, 0, 'c1'],
      ['/m/c', 1, 4, 4, null],
      ['/m/d', 0, 0, 0, 'd1'],
      ['/m/d', 0, 6, 6, 'd2'],
    ];
    for (const [name, deleted, created, prev, value] of rows) log.run(name, deleted, created, prev, value === null ? null : Buffer.from(value));
    const current = db.prepare('INSERT INTO current (name, create_revision, mod_revision, value) VALUES (?, ?, ?, ?)');
    current.run('/m/a', 1, 3, Buffer.from('a2'));
    current.run('/m/b', 2, 2, Buffer.from('b1'));
    current.run('/m/d', 6, 7, Buffer.from('d2'));
    db.exec("DELETE FROM log WHERE id = 1; UPDATE meta SET value = 3 WHERE name = 'compact_revision'");
  } finally {
    db.close();
  }
}

const text = (v: Uint8Array): string => Buffer.from(v).toString('utf8');

it('a version 1 file is migrated on open, keeping every row, revision and the compact revision', async () => {
  const path = join(dir, 'v1.db');
  writeV1(path);
  const store = openSqliteStorage({ path, compactIntervalMs: 0 });
  try {
    assert.equal(await store.currentRevision(), 7);
    assert.equal(store.compactRevision(), 3);
    const now = await store.list('/m/');
    assert.deepEqual(
      now.items.map((kv) => [kv.key, text(kv.value), kv.createRevision, kv.modRevision]),
      [
        ['/m/a', 'a2', 1, 3],
        ['/m/b', 'b1', 2, 2],
        ['/m/d', 'd2', 6, 7],
      ],
    );
    assert.deepEqual((await store.list('/m/', { revision: 4 })).items.map((kv) => text(kv.value)), ['a2', 'b1', 'c1']);
    // The history replays from the log, prevKv included.
    const watch = store.watch('/m/', 3);
    const events: StorageEvent[] = await takeEvents(watch, 4);
    watch.cancel();
    assert.deepEqual(events.map(eventRevision), [4, 5, 6, 7]);
    const last = events[3]!;
    assert.ok(last.type === 'PUT' && last.prevKv !== undefined && text(last.prevKv.value) === 'd1');
    // Writes go on from the last revision, through the new schema.
    const a = (await store.get('/m/a'))!;
    assert.equal((await store.update('/m/a', Buffer.from('a3'), a.modRevision)).modRevision, 8);
    assert.equal((await store.create('/m/e', Buffer.from('e1'))).modRevision, 9);
  } finally {
    await store.close();
  }
  const db = new Database(path);
  try {
    assert.equal((db.prepare("SELECT value FROM meta WHERE name = 'schema_version'").get() as { value: number }).value, SCHEMA_VERSION);
    const ddl = (db.prepare("SELECT sql FROM sqlite_master WHERE name IN ('log', 'current') ORDER BY name").all() as { sql: string }[]).map((r) => r.sql);
    assert.match(ddl[0]!, /WITHOUT ROWID/);
    assert.doesNotMatch(ddl[1]!, /AUTOINCREMENT/);
    assert.deepEqual(db.prepare('PRAGMA table_info(current)').all().map((c) => (c as { name: string }).name), ['name', 'create_revision', 'mod_revision']);
  } finally {
    db.close();
  }
});

/** Version 2's tables, as its builds created them. */
const V2_SQL = `
CREATE TABLE log (id INTEGER PRIMARY KEY, name TEXT NOT NULL, deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, value BLOB);
CREATE INDEX log_name_id ON log (name, id);
CREATE TABLE current (name TEXT PRIMARY KEY, create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO meta (name, value) VALUES ('compact_revision', 0), ('schema_version', 2);
`;

it('a version 2 file is migrated on open: the index by name gives way to log_tail, and the past reads as before', async () => {
  const path = join(dir, 'v2.db');
  const raw = new Database(path);
  try {
    raw.pragma('journal_mode = WAL');
    raw.exec(V2_SQL);
    // create a (1), create b (2), update a (3), delete b (4)
    raw.exec(`
      INSERT INTO log VALUES (1, '/m/a', 0, 0, 0, x'6131'), (2, '/m/b', 0, 0, 0, x'6231'), (3, '/m/a', 0, 1, 1, x'6132'), (4, '/m/b', 1, 2, 2, NULL);
      INSERT INTO current VALUES ('/m/a', 1, 3);
    `);
  } finally {
    raw.close();
  }
  const store = openSqliteStorage({ path, compactIntervalMs: 0 });
  try {
    assert.equal(await store.currentRevision(), 4);
    const at2 = await store.list('/m/', { revision: 2 });
    assert.deepEqual(at2.items.map((kv) => [kv.key, text(kv.value), kv.createRevision, kv.modRevision]), [
      ['/m/a', 'a1', 1, 1],
      ['/m/b', 'b1', 2, 2],
    ]);
    const watch = store.watch('/m/', 2);
    const events = await takeEvents(watch, 2);
    watch.cancel();
    assert.deepEqual(events.map(eventRevision), [3, 4]);
  } finally {
    await store.close();
  }
  const db = new Database(path);
  try {
    assert.equal((db.prepare("SELECT value FROM meta WHERE name = 'schema_version'").get() as { value: number }).value, SCHEMA_VERSION);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'log'").all() as { name: string }[];
    assert.deepEqual(indexes.map((i) => i.name), ['log_tail']);
  } finally {
    db.close();
  }
});

it('a file of a newer schema version is refused', async () => {
  const path = join(dir, 'future.db');
  await openSqliteStorage({ path, compactIntervalMs: 0 }).close();
  const db = new Database(path);
  db.prepare("UPDATE meta SET value = ? WHERE name = 'schema_version'").run(SCHEMA_VERSION + 1);
  db.close();
  assert.throws(() => openSqliteStorage({ path, compactIntervalMs: 0 }), /schema version/);
});
