import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { backupTimestamp, newLogBackend } from './log-backend.js';

describe('audit log backend', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'audit-log-'));
  after(() => rm(dir, { recursive: true, force: true }));

  it('appends one JSON object per line, creating the directory', async () => {
    const path = join(dir, 'nested', 'audit.log');
    const backend = newLogBackend({ path });
    backend.write({ n: 1 });
    backend.write({ n: 2 });
    await backend.close();
    const lines = (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { n: number });
    assert.deepEqual(lines.map((l) => l.n), [1, 2]);
  });

  it('rotates by size into time-stamped backups and keeps at most maxBackups', async () => {
    const path = join(dir, 'rotating.log');
    let clock = Date.UTC(2026, 10, 30, 12, 0, 0);
    const backend = newLogBackend({ path, maxSizeMB: 1, maxBackups: 2, now: () => new Date((clock += 1000)) });
    const big = 'x'.repeat(400 * 1024);
    for (let i = 0; i < 8; i++) {
      backend.write({ i, big });
      await backend.flush();
    }
    await backend.close();
    const files = (await readdir(dir)).filter((f) => f.startsWith('rotating'));
    const backups = files.filter((f) => f !== 'rotating.log');
    assert.equal(backups.length, 2, files.join(' '));
    for (const b of backups) assert.match(b, /^rotating-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
    const current = (await readFile(path, 'utf8')).trim().split('\n');
    assert.ok(current.length >= 1 && current.length <= 2);
    assert.equal((JSON.parse(current.at(-1)!) as { i: number }).i, 7);
  });

  it('names backups with UTC time as lumberjack does', () => {
    assert.equal(backupTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 67))), '2026-01-02T03-04-05.067');
  });

  it('reports a write that fails and keeps accepting events', async () => {
    // The log's path is a directory: every write fails.
    const path = join(dir, 'is-a-directory.log');
    await mkdir(path);
    const errors: unknown[] = [];
    const backend = newLogBackend({ path, onError: (e) => errors.push(e) });
    backend.write({ lost: true });
    await backend.flush();
    assert.equal(errors.length, 1);
    backend.write({ lost: true });
    await backend.close();
    assert.equal(errors.length, 2);
  });
});
