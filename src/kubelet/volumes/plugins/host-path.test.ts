import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setUpHostPath } from './host-path.js';

describe('hostPath volumes', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-host-path-'));
  const dir = join(root, 'dir');
  const file = join(root, 'file');
  const socket = join(root, 'sock');
  const server = createServer();
  before(async () => {
    mkdirSync(dir);
    writeFileSync(file, 'x');
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(root, { recursive: true, force: true });
  });

  it('checks nothing without a type', async () => {
    assert.equal(await setUpHostPath({ path: join(root, 'missing') }), join(root, 'missing'));
    assert.equal(await setUpHostPath({ path: file, type: '' }), file);
  });

  it('accepts paths of the named type', async () => {
    assert.equal(await setUpHostPath({ path: dir, type: 'Directory' }), dir);
    assert.equal(await setUpHostPath({ path: file, type: 'File' }), file);
    assert.equal(await setUpHostPath({ path: socket, type: 'Socket' }), socket);
    assert.equal(await setUpHostPath({ path: '/dev/null', type: 'CharDevice' }), '/dev/null');
    assert.equal(await setUpHostPath({ path: dir, type: 'DirectoryOrCreate' }), dir);
    assert.equal(await setUpHostPath({ path: file, type: 'FileOrCreate' }), file);
  });

  it('creates a missing directory (0755, with parents) or an empty file (0644)', async () => {
    const newDir = join(root, 'made', 'deep');
    await setUpHostPath({ path: newDir, type: 'DirectoryOrCreate' });
    assert.ok(statSync(newDir).isDirectory());
    const newFile = join(root, 'made', 'file');
    await setUpHostPath({ path: newFile, type: 'FileOrCreate' });
    assert.ok(statSync(newFile).isFile());
    assert.equal(statSync(newFile).size, 0);
    await assert.rejects(setUpHostPath({ path: join(root, 'no-parent', 'f'), type: 'FileOrCreate' }), /ENOENT/);
  });

  it('fails with upstream messages for a missing path or the wrong type', async () => {
    const missing = join(root, 'nothing');
    const cases: [string, string, string][] = [
      [missing, 'Directory', `hostPath ${missing} doesn't exist`],
      [missing, 'File', `hostPath ${missing} doesn't exist`],
      [missing, 'Socket', `hostPath ${missing} doesn't exist`],
      [file, 'Directory', `hostPath type check failed: ${file} is not a directory, it's a File`],
      [dir, 'File', `hostPath type check failed: ${dir} is not a file, it's a Directory`],
      [file, 'Socket', `hostPath type check failed: ${file} is not a socket file, it's a File`],
      [dir, 'CharDevice', `hostPath type check failed: ${dir} is not a character device, it's a Directory`],
      ['/dev/null', 'BlockDevice', "hostPath type check failed: /dev/null is not a block device, it's a CharDevice"],
      [file, 'DirectoryOrCreate', `hostPath type check failed: ${file} is not a directory, it's a File`],
      [dir, 'FileOrCreate', `hostPath type check failed: ${dir} is not a file, it's a Directory`],
      [dir, 'Pipe', 'Pipe is an invalid volume type'],
      [`${root}/../etc`, '', `invalid HostPath \`${root}/../etc\`: must not contain '..'`],
    ];
    for (const [path, type, message] of cases) {
      await assert.rejects(setUpHostPath({ path, type }), (e: unknown) => {
        assert.equal((e as Error).message, message);
        return true;
      });
    }
  });
});
