/**
 * Child process of the crash test: opens the sqlite store at argv[2] and, with
 * several concurrent writers, creates and updates keys under `/crash/<run>/`
 * (run = argv[3]) as fast as it can, until it is killed. After each write is
 * acknowledged (its promise resolved, so its transaction committed) it prints
 * one line: `<key> <modRevision> <value>`.
 *
 *   node dist/src/storage/sqlite/testing/crash-writer.js DB_PATH RUN
 */
import { openSqliteStorage } from '../sqlite-storage.js';

const [path, run] = process.argv.slice(2);
if (path === undefined || run === undefined) {
  process.stderr.write('usage: crash-writer DB_PATH RUN\n');
  process.exit(2);
}

const WRITERS = 16;
const store = openSqliteStorage({ path, compactIntervalMs: 0 });
const enc = new TextEncoder();

/** One writer: creates a key, then alternately updates its keys and creates new ones. */
async function writer(w: number): Promise<never> {
  const revisions = new Map<string, number>();
  for (let i = 0; ; i++) {
    const own = [...revisions.keys()];
    let key: string;
    let revision: number;
    const value = `${run}-${w}-${i}`;
    if (i % 3 === 0 || own.length === 0) {
      key = `/crash/${run}/w${w}/k${i}`;
      revision = (await store.create(key, enc.encode(value))).modRevision;
    } else {
      key = own[i % own.length]!;
      revision = (await store.update(key, enc.encode(value), revisions.get(key)!)).modRevision;
    }
    revisions.set(key, revision);
    process.stdout.write(`${key} ${revision} ${value}\n`);
  }
}

await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
