import type Database from 'better-sqlite3';
import {
  CREATE_CURRENT_SQL,
  DELETE_CURRENT_SQL,
  INSERT_LOG_SQL,
  LAST_REVISION_SQL,
  UPDATE_CURRENT_SQL,
} from './schema.js';

/** A key range: keys under `prefix`, optionally only those strictly after `after`. */
export interface KeyRange {
  readonly prefix: string;
  /** prefixEnd(prefix); '' when the range has no upper bound. */
  readonly end: string;
  readonly after?: string | undefined;
}

/** A key's current row. */
export interface CurrentRow {
  readonly create_revision: number;
  readonly mod_revision: number;
  readonly value: Buffer;
}

/** One key of a list. */
export interface ListRow {
  readonly name: string;
  readonly create_revision: number;
  readonly mod_revision: number;
  readonly value: Buffer;
}

/** One log row with its previous row, for a watch replay. */
export interface ReplayRow {
  readonly id: number;
  readonly name: string;
  readonly deleted: number;
  readonly create_revision: number;
  readonly value: Buffer | null;
  readonly prev_id: number | null;
  readonly prev_create_revision: number | null;
  readonly prev_value: Buffer | null;
}

type Params = Record<string, string | number>;

/** The create revision of a log row: 0 in the column means the row created the key. */
const LOG_CREATE_REVISION = (t: string): string => `IIF(${t}.create_revision = 0, ${t}.id, ${t}.create_revision)`;

/**
 * Every prepared statement of the sqlite store, and the SQL of its reads.
 * Statements whose WHERE clause depends on the range's shape (with or without
 * an upper bound, with or without a continue key) are prepared on first use and
 * cached.
 */
export class Statements {
  readonly getCurrent: Database.Statement<[string], CurrentRow>;
  readonly insertLog: Database.Statement<[number, string, number, number, number, Uint8Array | null]>;
  readonly createCurrent: Database.Statement<[string, number, number]>;
  readonly updateCurrent: Database.Statement<[number, string, number], { create_revision: number }>;
  readonly deleteCurrent: Database.Statement<[string]>;
  private readonly lastRevisionStmt: Database.Statement<[], { revision: number }>;
  private readonly getMetaStmt: Database.Statement<[string], { value: number }>;
  private readonly setMetaStmt: Database.Statement<[number, string]>;
  private readonly compactStmt: Database.Statement<[Params]>;
  private readonly db: Database.Database;
  private readonly cache = new Map<string, Database.Statement<[Params], unknown>>();

  constructor(db: Database.Database) {
    this.db = db;
    this.getCurrent = db.prepare(
      'SELECT c.create_revision AS create_revision, c.mod_revision AS mod_revision, l.value AS value ' +
        'FROM current c JOIN log l ON l.id = c.mod_revision WHERE c.name = ?',
    );
    this.insertLog = db.prepare(INSERT_LOG_SQL);
    this.createCurrent = db.prepare(CREATE_CURRENT_SQL);
    this.updateCurrent = db.prepare(UPDATE_CURRENT_SQL);
    this.deleteCurrent = db.prepare(DELETE_CURRENT_SQL);
    this.lastRevisionStmt = db.prepare(LAST_REVISION_SQL);
    this.getMetaStmt = db.prepare('SELECT value FROM meta WHERE name = ?');
    this.setMetaStmt = db.prepare('UPDATE meta SET value = ? WHERE name = ?');
    // Incremental: every row superseded at or below `to` is the prev_revision of
    // a later row at or below `to`; rows up to `from` were handled by earlier
    // compactions, so only rows in (from, to] need looking at.
    this.compactStmt = db.prepare(
      'DELETE FROM log WHERE id IN ' +
        '(SELECT prev_revision FROM log WHERE id > @from AND id <= @to AND prev_revision > 0) ' +
        'OR (id > @from AND id <= @to AND deleted = 1)',
    );
  }

  /** The last revision ever written (even when compaction deleted its row). */
  lastRevision(): number {
    return this.lastRevisionStmt.get()!.revision;
  }

  getMeta(name: string): number {
    const row = this.getMetaStmt.get(name);
    if (row === undefined) throw new Error(`meta row "${name}" is missing`);
    return row.value;
  }

  setMeta(name: string, value: number): void {
    this.setMetaStmt.run(value, name);
  }

  /** Delete the log rows compaction to `to` makes useless, given compaction to `from` is done. */
  compact(from: number, to: number): number {
    return this.compactStmt.run({ from, to }).changes;
  }

  /** Keys in the range from the current table, in key order. `limit` < 0: no limit. */
  listCurrent(range: KeyRange, limit: number): ListRow[] {
    const sql =
      'SELECT c.name AS name, c.create_revision AS create_revision, c.mod_revision AS mod_revision, l.value AS value ' +
      `FROM current c JOIN log l ON l.id = c.mod_revision WHERE ${rangeClause('c.name', range)} ORDER BY c.name LIMIT @limit`;
    return this.prepared<ListRow>(sql).all(rangeParams(range, { limit }));
  }

  /**
   * Keys in the range as they were at `revision`, in key order: the current
   * rows written at or before it, and for each key written since, the previous
   * row of the first write after it (none when that write created the key).
   * Only values of the rows returned are read.
   */
  listAt(range: KeyRange, revision: number, limit: number): ListRow[] {
    const sql =
      `SELECT a.name AS name, ${LOG_CREATE_REVISION('l')} AS create_revision, l.id AS mod_revision, l.value AS value ` +
      `FROM (SELECT name, id FROM (${rowsAt(range)}) ORDER BY name LIMIT @limit) a JOIN log l ON l.id = a.id ORDER BY a.name`;
    return this.prepared<ListRow>(sql).all(rangeParams(range, { rev: revision, limit }));
  }

  /** How many keys the range holds in the current table. */
  countCurrent(range: KeyRange): number {
    const sql = `SELECT count(*) AS n FROM current WHERE ${rangeClause('name', range)}`;
    return this.prepared<{ n: number }>(sql).get(rangeParams(range, {}))!.n;
  }

  /** How many keys the range held at `revision` (listAt's rows, counted). */
  countAt(range: KeyRange, revision: number): number {
    const sql = `SELECT count(*) AS n FROM (${rowsAt(range)})`;
    return this.prepared<{ n: number }>(sql).get(rangeParams(range, { rev: revision }))!.n;
  }

  /**
   * True when a key in the range was written after `revision`. Scans the
   * entries of `log_tail` from the revision on, so callers use it only when
   * few revisions have passed.
   */
  changedSince(range: KeyRange, revision: number): boolean {
    const sql = `SELECT 1 AS one FROM log INDEXED BY log_tail WHERE id > @rev AND ${rangeClause('name', range)} LIMIT 1`;
    return this.prepared<{ one: number }>(sql).get(rangeParams(range, { rev: revision })) !== undefined;
  }

  /**
   * Log rows in the range with id above `after`, in revision order, each with
   * its previous row. The names are matched in `log_tail`, so only the rows in
   * the range are read.
   */
  replay(range: KeyRange, after: number): IterableIterator<ReplayRow> {
    const sql =
      `SELECT l.id AS id, l.name AS name, l.deleted AS deleted, ${LOG_CREATE_REVISION('l')} AS create_revision, ` +
      `l.value AS value, p.id AS prev_id, ${LOG_CREATE_REVISION('p')} AS prev_create_revision, p.value AS prev_value ` +
      // CROSS JOIN: sqlite must not turn this into a scan of the log's rows.
      'FROM log t INDEXED BY log_tail CROSS JOIN log l ON l.id = t.id LEFT JOIN log p ON p.id = l.prev_revision ' +
      `WHERE t.id > @rev AND ${rangeClause('t.name', range)} ORDER BY t.id`;
    return this.prepared<ReplayRow>(sql).iterate(rangeParams(range, { rev: after }));
  }

  private prepared<Row>(sql: string): Database.Statement<[Params], Row> {
    let stmt = this.cache.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare<[Params], unknown>(sql);
      this.cache.set(sql, stmt);
    }
    return stmt as Database.Statement<[Params], Row>;
  }
}

/**
 * (name, id) of each key in the range at revision @rev, in no order: a current
 * row written at or before @rev is still the key's row then. A key written
 * since has its row at @rev named by the first write after it: an update or a
 * delete names the key's live row, a create none (the key was absent). That
 * row is never compacted away while @rev is readable: it was superseded after
 * @rev only. The first write after @rev is found in `log_tail` by its id.
 */
function rowsAt(range: KeyRange): string {
  return (
    `SELECT c.name AS name, c.mod_revision AS id FROM current c WHERE ${rangeClause('c.name', range)} AND c.mod_revision <= @rev ` +
    'UNION ALL SELECT f.name, w.prev_revision FROM ' +
    `(SELECT name, min(id) AS first FROM log INDEXED BY log_tail WHERE id > @rev AND ${rangeClause('name', range)} GROUP BY name) f ` +
    'JOIN log w INDEXED BY log_tail ON w.id = f.first WHERE w.prev_revision > 0'
  );
}

/** The WHERE clause of a range on `column` (text comparison is byte-wise: BINARY collation on UTF-8). */
function rangeClause(column: string, range: KeyRange): string {
  let clause = `${column} >= @lo`;
  if (range.end !== '') clause += ` AND ${column} < @hi`;
  if (range.after !== undefined) clause += ` AND ${column} > @after`;
  return clause;
}

function rangeParams(range: KeyRange, extra: Params): Params {
  const params: Params = { ...extra, lo: range.prefix };
  if (range.end !== '') params['hi'] = range.end;
  if (range.after !== undefined) params['after'] = range.after;
  return params;
}
