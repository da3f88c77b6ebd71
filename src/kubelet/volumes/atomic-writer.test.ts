import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { validatePayloadPath, writeAtomically, type FileProjection } from './atomic-writer.js';

const file = (text: string, mode = 0o644): FileProjection => ({ data: Buffer.from(text), mode });
const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');
const hidden = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('..')).sort();

describe('atomic writer', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-atomic-writer-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const newDir = (): string => mkdtempSync(join(root, `t${n++}-`));

  it('writes a timestamped directory, a ..data link to it and one link per top-level name', async () => {
    const dir = newDir();
    const written = await writeAtomically(dir, new Map([['a', file('A')], ['sub/b', file('B', 0o600)], ['./c//d/', file('D')]]), { now: () => new Date(Date.UTC(2026, 10, 30, 18, 43, 53)) });
    assert.equal(written, true);
    const data = readlinkSync(join(dir, '..data'));
    assert.match(data, /^\.\.2026_11_30_18_43_53\.\w+$/);
    assert.equal(statSync(join(dir, data)).mode & 0o777, 0o755);
    assert.deepEqual(hidden(dir), [data, '..data'].sort());
    assert.equal(readlinkSync(join(dir, 'a')), '..data/a');
    assert.equal(readlinkSync(join(dir, 'sub')), '..data/sub');
    assert.equal(readlinkSync(join(dir, 'c')), '..data/c');
    assert.deepEqual([read(dir, 'a'), read(dir, 'sub/b'), read(dir, 'c/d')], ['A', 'B', 'D']);
    assert.equal(statSync(join(dir, 'sub/b')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'a')).mode & 0o777, 0o644);
  });

  it('writes nothing when contents and modes are unchanged, and a new version when either changes', async () => {
    const dir = newDir();
    await writeAtomically(dir, new Map([['a', file('A')]]));
    const first = readlinkSync(join(dir, '..data'));
    assert.equal(await writeAtomically(dir, new Map([['a', file('A')]])), false);
    assert.equal(readlinkSync(join(dir, '..data')), first);
    assert.equal(await writeAtomically(dir, new Map([['a', file('A', 0o400)]])), true);
    const second = readlinkSync(join(dir, '..data'));
    assert.notEqual(second, first);
    assert.equal(statSync(join(dir, 'a')).mode & 0o777, 0o400);
    assert.equal(await writeAtomically(dir, new Map([['a', file('A2', 0o400)]])), true);
    assert.equal(read(dir, 'a'), 'A2');
    assert.deepEqual(hidden(dir).length, 2, 'old versions are removed');
  });

  it('keeps the old contents readable until ..data is swapped, then removes names that went away', async () => {
    const dir = newDir();
    await writeAtomically(dir, new Map([['keep', file('old')], ['gone', file('bye')], ['nested/x', file('x')]]));
    const oldVersion = readlinkSync(join(dir, '..data'));
    let sawDuringWrite = false;
    await writeAtomically(dir, new Map([['keep', file('new')], ['added', file('hello')]]), {
      beforeSwap: (next) => {
        sawDuringWrite = true;
        assert.equal(read(dir, 'keep'), 'old');
        assert.equal(read(dir, 'gone'), 'bye');
        assert.equal(read(dir, 'nested/x'), 'x');
        assert.throws(() => lstatSync(join(dir, 'added')));
        assert.equal(readFileSync(join(next, 'keep'), 'utf8'), 'new');
        assert.equal(readlinkSync(join(dir, '..data')), oldVersion);
      },
    });
    assert.ok(sawDuringWrite);
    assert.equal(read(dir, 'keep'), 'new');
    assert.equal(read(dir, 'added'), 'hello');
    assert.throws(() => lstatSync(join(dir, 'gone')));
    assert.throws(() => lstatSync(join(dir, 'nested')));
    assert.throws(() => lstatSync(join(dir, oldVersion)));
  });

  it('writes an empty payload as an empty version, and removes everything it had', async () => {
    const dir = newDir();
    await writeAtomically(dir, new Map([['a', file('A')]]));
    assert.equal(await writeAtomically(dir, new Map()), true);
    assert.deepEqual(readdirSync(dir).filter((name) => !name.startsWith('..')), []);
    assert.deepEqual(readdirSync(join(dir, '..data')), []);
  });

  it('leaves the current version in place when a write fails', async () => {
    const dir = newDir();
    await writeAtomically(dir, new Map([['a', file('A')]]));
    const current = readlinkSync(join(dir, '..data'));
    await assert.rejects(writeAtomically(dir, new Map([['a', file('B')]]), { beforeSwap: () => Promise.reject(new Error('disk full')) }), /disk full/);
    assert.equal(readlinkSync(join(dir, '..data')), current);
    assert.equal(read(dir, 'a'), 'A');
    assert.deepEqual(hidden(dir), [current, '..data'].sort(), 'the half-written version is removed');
  });

  it('rejects invalid paths with upstream messages', async () => {
    assert.throws(() => validatePayloadPath(''), /invalid path: must not be empty/);
    assert.throws(() => validatePayloadPath('/etc/passwd'), /invalid path: must be relative path: \/etc\/passwd/);
    assert.throws(() => validatePayloadPath('a/../../b'), /invalid path: must not contain '\.\.': a\/\.\.\/\.\.\/b/);
    assert.throws(() => validatePayloadPath('..data'), /invalid path: must not start with '\.\.': \.\.data/);
    assert.throws(() => validatePayloadPath('x'.repeat(256)), /filenames must be less than or equal to 255 characters/);
    assert.throws(() => validatePayloadPath('a/'.repeat(2049)), /must be less than or equal to 4096 characters/);
    validatePayloadPath('a..b/c');
    const dir = newDir();
    await assert.rejects(writeAtomically(dir, new Map([['ok', file('A')], ['../escape', file('B')]])), /must not contain '\.\.'/);
    assert.deepEqual(readdirSync(dir), []);
  });
});
