import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../testing/conformance.js';
import { isAlive } from './pid-alive.js';
import { ShimPool } from './shim-pool.js';

describe('ShimPool (spawning on its worker thread)', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-shim-pool-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reports the exit of a shim that dies before starting its container', async () => {
    // A "shim" that exits at once with status 3, as a broken shim.js would.
    const script = join(root, 'dies.js');
    writeFileSync(script, 'process.exit(3);\n');
    const pool = new ShimPool({ script, size: 0, idleLogFile: join(root, 'idle.log') });
    const shim = pool.launch(root, join(root, 'shim.log'));
    assert.equal(shim.exited(), undefined);
    assert.equal(await eventually('the exit to be reported', async () => shim.exited()), 'the shim exited (3)');
    await pool.close();
  });

  it('says a shim could not be spawned when its log cannot be opened, and boots no idle shim', async () => {
    const missing = join(root, 'no-such-dir');
    const pool = new ShimPool({ script: join(root, 'dies.js'), size: 2, idleLogFile: join(missing, 'idle.log') });
    pool.fill();
    const shim = pool.launch(root, join(missing, 'shim.log'));
    assert.equal(await eventually('the failure to be reported', async () => shim.exited()), 'the shim could not be spawned');
    assert.deepEqual(pool.idlePids(), []);
    await pool.close();
  });

  it('keeps `size` idle shims and ends them on close; close twice is harmless', async () => {
    const script = join(root, 'waits.js');
    // Waits for its stdin to close, as shim.js --idle does.
    writeFileSync(script, "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));\n");
    const pool = new ShimPool({ script, size: 2, idleLogFile: join(root, 'idle.log') });
    pool.fill();
    const pids = await eventually('two idle shims', async () => (pool.idlePids().length === 2 ? pool.idlePids() : undefined));
    await pool.close();
    await pool.close();
    await eventually('the idle shims to exit', async () => (pids.some(isAlive) ? undefined : true));
    assert.deepEqual(pool.idlePids(), []);
    // A closed pool still launches (a start racing the kubelet's shutdown), with a fresh shim.
    const shim = pool.launch(root, join(root, 'late.log'));
    assert.equal(shim.exited(), undefined);
  });
});
