import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startErrorMessage } from './start-error.js';

/** The error Node gives when it cannot start `file`. */
const spawnError = (file: string, cwd?: string): Promise<Error> =>
  new Promise((resolve) => spawn(file, [], { stdio: 'ignore', ...(cwd !== undefined ? { cwd } : {}) }).once('error', resolve));

describe('startErrorMessage', () => {
  it("words Node's spawn errors as runc does", async () => {
    assert.equal(startErrorMessage('no-such-cmd', '/', await spawnError('no-such-cmd')), 'exec: "no-such-cmd": executable file not found in $PATH');
    assert.equal(startErrorMessage('/no/such/cmd', '/', await spawnError('/no/such/cmd')), 'exec: "/no/such/cmd": stat /no/such/cmd: no such file or directory');
    const dir = mkdtempSync(join(tmpdir(), 'start-error-'));
    try {
      const notExecutable = join(dir, 'script');
      writeFileSync(notExecutable, 'echo hi\n', { mode: 0o644 });
      assert.equal(startErrorMessage(notExecutable, '/', await spawnError(notExecutable)), `exec: "${notExecutable}": permission denied`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(startErrorMessage('sh', '/no/such/dir', await spawnError('sh', '/no/such/dir')), 'chdir to cwd ("/no/such/dir") set in config.json failed: no such file or directory');
    assert.equal(startErrorMessage('x', '/', new Error('something else')), 'something else');
  });
});
