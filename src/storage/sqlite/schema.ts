import type Database from 'better-sqlite3';

/**
 * The sqlite store's schema, pragmas and write SQL, in one place so that the
 * backend and the benchmark's raw-engine baseline run exactly the same SQL.
 *
 * - `log`: one row per write; the row id is the revision. The store assigns
 *   ids itself (the last revision + 1, inside the write transaction, so a
 *   rolled-back transaction leaves no hole). Ids are never reused: compaction
 *   deletes only rows at or below the compact revision it records in the same
 *   transaction, so the last revision ever written is
 *   max(max(id), compact revision) ({@link LAST_REVISION_SQL}).
 *   `create_revision` is 0 on the row that created its key (the row's own id is
 *   then the create revision). `prev_revision` names the key's previous row (0
 *   for a create): a watch replay takes prevKv from it. A delete is a tombstone
 *   row (`deleted` = 1, value NULL).
 * - `log_tail`, an index of the log by id holding each row's name and
 *   previous row: the reads of the past scan the rows written after a revision
 *   in it, without reading the values (a row of a pod fills a page). Its
 *   entries are appended in id order, so a transaction dirties a few pages at
 *   its end (about five for 64 pod creates); an index by name (versions 1 and
 *   2) dirtied a page per write, at random, as `current` does.
 * - `current`: each live key's revisions; its value is that of the log row
 *   `mod_revision` (compaction never deletes a live key's latest row). Storing
 *   the value once halves the data pages a write dirties, and so the WAL bytes,
 *   their fsync and the checkpoint's copying; WITHOUT ROWID keeps one b-tree
 *   keyed by name instead of a rowid table plus its name index.
 * - `meta`: named integers (the compact revision, the schema version).
 *
 * Version 1 also stored the value in `current`, and gave `log` AUTOINCREMENT
 * (a sqlite_sequence write per insert); version 2 indexed the log by (name, id)
 * instead of `log_tail`. {@link initSchema} migrates such files.
 */
export const SCHEMA_VERSION = 3;

const LOG_COLUMNS = `
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB`;
const CURRENT_COLUMNS = `
  name TEXT PRIMARY KEY,
  create_revision INTEGER NOT NULL,
  mod_revision INTEGER NOT NULL`;

/** DDL creating every table and index; idempotent. */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS log (${LOG_COLUMNS});
CREATE INDEX IF NOT EXISTS log_tail ON log (id, name, prev_revision);
CREATE TABLE IF NOT EXISTS current (${CURRENT_COLUMNS}) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta (name, value) VALUES ('compact_revision', 0);
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION});
`;

/**
 * Migrations, by the version they start from; each leaves the next version
 * (the indexes {@link SCHEMA_SQL} creates excepted).
 *
 * 1 → 2: the tables are rebuilt (sqlite can neither drop AUTOINCREMENT nor add
 * WITHOUT ROWID in place); every log row keeps its id.
 * 2 → 3: the log's index by name gives way to `log_tail`.
 */
const MIGRATIONS: Record<number, string> = {
  1: `
CREATE TABLE log_v2 (${LOG_COLUMNS});
INSERT INTO log_v2 (id, name, deleted, create_revision, prev_revision, value)
  SELECT id, name, deleted, create_revision, prev_revision, value FROM log ORDER BY id;
DROP TABLE log;
ALTER TABLE log_v2 RENAME TO log;
CREATE TABLE current_v2 (${CURRENT_COLUMNS}) WITHOUT ROWID;
INSERT INTO current_v2 (name, create_revision, mod_revision) SELECT name, create_revision, mod_revision FROM current;
DROP TABLE current;
ALTER TABLE current_v2 RENAME TO current;
UPDATE meta SET value = 2 WHERE name = 'schema_version';
`,
  2: `
DROP INDEX IF EXISTS log_name_id;
UPDATE meta SET value = 3 WHERE name = 'schema_version';
`,
};

/** The last revision ever written (see the log's description above). */
export const LAST_REVISION_SQL =
  "SELECT max(coalesce((SELECT max(id) FROM log), 0), (SELECT value FROM meta WHERE name = 'compact_revision')) AS revision";

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

/**
 * Apply {@link pragmas} and {@link SCHEMA_SQL} to a freshly opened connection,
 * migrating a file of an older version first (in one transaction: a crash
 * leaves the file as it was).
 */
export function initSchema(db: Database.Database, synchronous: SynchronousLevel): void {
  for (const pragma of pragmas(synchronous)) db.pragma(pragma);
  const mode = db.pragma('journal_mode', { simple: true });
  if (mode !== 'wal') throw new Error(`cannot switch the database to WAL mode (journal_mode is ${String(mode)})`);
  db.transaction(() => {
    for (let version = schemaVersion(db); version !== undefined && version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]!);
    }
    db.exec(SCHEMA_SQL);
  })();
}

/** The version a file records, or undefined for a new file. */
function schemaVersion(db: Database.Database): number | undefined {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (table === undefined) return undefined;
  const row = db.prepare("SELECT value FROM meta WHERE name = 'schema_version'").get() as { value: number } | undefined;
  return row?.value;
}

/**
 * Append a log row at a revision the store chose: (id, name, deleted,
 * create_revision, prev_revision, value).
 */
export const INSERT_LOG_SQL =
  'INSERT INTO log (id, name, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)';

/**
 * A create's current row: (name, create_revision, mod_revision). No change
 * when the key exists, which is how a create finds out (no read first).
 */
export const CREATE_CURRENT_SQL =
  'INSERT OR IGNORE INTO current (name, create_revision, mod_revision) VALUES (?, ?, ?)';

/**
 * An update's compare-and-swap: (new mod_revision, name, expected
 * mod_revision). Returns the create revision when it matched, no row otherwise.
 */
export const UPDATE_CURRENT_SQL =
  'UPDATE current SET mod_revision = ? WHERE name = ? AND mod_revision = ? RETURNING create_revision';

/** Drop a deleted key's current row. */
export const DELETE_CURRENT_SQL = 'DELETE FROM current WHERE name = ?';

/** One write of the raw baseline. */
export interface RawRow {
  readonly key: string;
  readonly value: Uint8Array;
}

/**
 * The benchmark's raw-engine baseline: returns a function that writes rows in
 * ONE transaction with the SQL the backend runs for a create or an update (a
 * log row plus the current row), without promises or watch dispatch. Returns
 * the last revision written.
 *
 * @example
 *   const db = new Database(file);
 *   initSchema(db, 'FULL');
 *   const write = newRawWriter(db);
 *   write([{ key: '/registry/pods/a', value }]);
 */
export function newRawWriter(db: Database.Database): (rows: readonly RawRow[]) => number {
  const last = db.prepare<[], { revision: number }>(LAST_REVISION_SQL);
  const insertLog = db.prepare<[number, string, number, number, number, Uint8Array]>(INSERT_LOG_SQL);
  const createCurrent = db.prepare<[string, number, number]>(CREATE_CURRENT_SQL);
  const getCurrent = db.prepare<[string], { mod_revision: number }>('SELECT mod_revision FROM current WHERE name = ?');
  const updateCurrent = db.prepare<[number, string, number], { create_revision: number }>(UPDATE_CURRENT_SQL);
  return db.transaction((rows: readonly RawRow[]): number => {
    let id = last.get()!.revision;
    for (const { key, value } of rows) {
      id++;
      if (createCurrent.run(key, id, id).changes === 1) {
        insertLog.run(id, key, 0, 0, 0, value);
        continue;
      }
      const prev = getCurrent.get(key)!.mod_revision;
      const created = updateCurrent.get(id, key, prev)!.create_revision;
      insertLog.run(id, key, 0, created, prev, value);
    }
    return id;
  });
}
