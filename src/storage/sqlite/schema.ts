import type Database from 'better-sqlite3';

/**
 * The sqlite store's schema, pragmas and write SQL, in one place so that the
 * backend and the benchmark's raw-engine baseline run exactly the same SQL.
 *
 * - `log`: one row per write; the row id is the revision. AUTOINCREMENT keeps
 *   ids from ever being reused (after compaction deletes the newest rows, say),
 *   and a failed transaction rolls back its ids too, so revisions have no holes.
 *   `create_revision` is 0 on the row that created its key (the row's own id is
 *   then the create revision: it is not known before the insert).
 *   `prev_revision` names the key's previous row (0 for a create): a watch
 *   replay takes prevKv from it. A delete is a tombstone row (`deleted` = 1,
 *   value NULL).
 * - `current`: each live key's latest row, so get and current-revision lists
 *   never touch the log.
 * - `meta`: named integers (the compact revision, the schema version).
 */
export const SCHEMA_VERSION = 1;

/** DDL creating every table and index; idempotent. */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB
);
CREATE INDEX IF NOT EXISTS log_name_id ON log (name, id);
CREATE TABLE IF NOT EXISTS current (
  name TEXT PRIMARY KEY,
  create_revision INTEGER NOT NULL,
  mod_revision INTEGER NOT NULL,
  value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta (name, value) VALUES ('compact_revision', 0);
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION});
`;

/** How hard sqlite makes each commit durable. */
export type SynchronousLevel = 'FULL' | 'NORMAL';

/**
 * The pragmas, in the order they must run.
 *
 * - `locking_mode = EXCLUSIVE` (set before WAL, so sqlite keeps the WAL index in
 *   process memory rather than a shared-memory file): the store feeds watchers
 *   in-process and keeps its revision in memory, so a second process writing
 *   the same file would corrupt both. With the lock a second opener fails
 *   loudly ("database is locked") instead.
 * - `journal_mode = WAL`: a commit appends to the WAL; one fsync per commit.
 * - `synchronous`: FULL fsyncs the WAL at every commit, so an acknowledged write
 *   survives power loss; NORMAL only fsyncs at checkpoints (a crash of the
 *   process loses nothing, a power loss may lose the last commits). See
 *   {@link openSqliteStorage}'s option for the default.
 * - `journal_size_limit`: truncate the WAL after a checkpoint, so the files on
 *   disk stay bounded.
 */
export function pragmas(synchronous: SynchronousLevel): string[] {
  return [
    'locking_mode = EXCLUSIVE',
    'journal_mode = WAL',
    `synchronous = ${synchronous}`,
    'journal_size_limit = 67108864',
    'foreign_keys = OFF',
  ];
}

/** Apply {@link pragmas} and {@link SCHEMA_SQL} to a freshly opened connection. */
export function initSchema(db: Database.Database, synchronous: SynchronousLevel): void {
  for (const pragma of pragmas(synchronous)) db.pragma(pragma);
  const mode = db.pragma('journal_mode', { simple: true });
  if (mode !== 'wal') throw new Error(`cannot switch the database to WAL mode (journal_mode is ${String(mode)})`);
  db.exec(SCHEMA_SQL);
}

/** Append a log row: (name, deleted, create_revision, prev_revision, value). */
export const INSERT_LOG_SQL =
  'INSERT INTO log (name, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?)';

/**
 * Make a key's current row the row just appended: (name, create_revision,
 * mod_revision, value). On update the create revision stays as it was.
 */
export const UPSERT_CURRENT_SQL =
  'INSERT INTO current (name, create_revision, mod_revision, value) VALUES (?, ?, ?, ?) ' +
  'ON CONFLICT (name) DO UPDATE SET mod_revision = excluded.mod_revision, value = excluded.value';

/** Drop a deleted key's current row. */
export const DELETE_CURRENT_SQL = 'DELETE FROM current WHERE name = ?';

/** One write of the raw baseline. */
export interface RawRow {
  readonly key: string;
  readonly value: Uint8Array;
}

/**
 * The benchmark's raw-engine baseline: returns a function that writes rows in
 * ONE transaction with the SQL the backend runs for a write (a log row plus
 * the current-row upsert), without the compare-and-swap read, promises or
 * watch dispatch. Returns the last revision written.
 *
 * @example
 *   const db = new Database(file);
 *   initSchema(db, 'FULL');
 *   const write = newRawWriter(db);
 *   write([{ key: '/registry/pods/a', value }]);
 */
export function newRawWriter(db: Database.Database): (rows: readonly RawRow[]) => number {
  const insertLog = db.prepare<[string, number, number, number, Uint8Array]>(INSERT_LOG_SQL);
  const upsertCurrent = db.prepare<[string, number, number, Uint8Array]>(UPSERT_CURRENT_SQL);
  return db.transaction((rows: readonly RawRow[]): number => {
    let id = 0;
    for (const { key, value } of rows) {
      id = Number(insertLog.run(key, 0, 0, 0, value).lastInsertRowid);
      upsertCurrent.run(key, id, id, value);
    }
    return id;
  });
}
