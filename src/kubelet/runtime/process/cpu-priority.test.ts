import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { lowerPriority, niceForCpuShares } from './cpu-priority.js';

describe('niceForCpuShares', () => {
  it('leaves a container without shares, or with a full CPU or more, at nice 0', () => {
    assert.equal(niceForCpuShares(undefined), 0);
    assert.equal(niceForCpuShares(0), 0);
    assert.equal(niceForCpuShares(1024), 0);
    assert.equal(niceForCpuShares(4096), 0);
  });

  it('gives BestEffort (2 shares, the minimum) the lowest priority, 19', () => {
    assert.equal(niceForCpuShares(2), 19);
  });

  it('maps a request to the nice value of the nearest scheduler weight', () => {
    assert.equal(niceForCpuShares(512), 3); // 1024 / 1.25^3 ≈ 524
    assert.equal(niceForCpuShares(102), 10); // 100m: 1024 / 1.25^10 ≈ 110
    assert.equal(niceForCpuShares(820), 1); // 800m
  });
});

describe('lowerPriority', () => {
  it('lowers a child process, and never raises one', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      const pid = child.pid!;
      const base = getPriority(pid);
      assert.equal(lowerPriority(pid, Math.min(base + 5, 19)), undefined);
      assert.equal(getPriority(pid), Math.min(base + 5, 19));
      assert.equal(lowerPriority(pid, base), undefined, 'a higher priority is not asked for');
      assert.equal(getPriority(pid), Math.min(base + 5, 19));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('returns the error for a process that does not exist', () => {
    assert.ok(lowerPriority(2 ** 22 + 1, 10) instanceof Error);
  });
});
