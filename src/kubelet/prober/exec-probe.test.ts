import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RuntimeError } from '../runtime/interface.js';
import { newProcessRuntime } from '../runtime/process/process-runtime.js';
import { execProbe, MAX_EXEC_OUTPUT_BYTES } from './exec-probe.js';
import { ProbeError } from './probe-outcome.js';
import { exitWith, newFakeRuntime } from './testing/fake-runtime.js';
import { startProcessContainer, type ProcessContainer } from './testing/process-container.js';

describe('execProbe (fake runtime)', () => {
  it('is success on exit 0 and failure otherwise, with stdout then stderr as output', async () => {
    const runtime = newFakeRuntime();
    runtime.run('c1');
    runtime.execAnswer = ({ cmd }) => exitWith(cmd[0] === 'ok' ? 0 : 3, 'out;', 'err');
    assert.deepEqual(await execProbe({ runtime, containerId: 'c1', command: ['ok'], timeoutMs: 1000 }), { verdict: 'success', output: 'out;err' });
    assert.deepEqual(await execProbe({ runtime, containerId: 'c1', command: ['bad'], timeoutMs: 1000 }), { verdict: 'failure', output: 'out;err' });
    assert.equal(runtime.execCalls[0]!.timeoutSeconds, 1);
  });

  it('keeps at most 10 KiB of output', async () => {
    const runtime = newFakeRuntime();
    runtime.run('c1');
    runtime.execAnswer = () => exitWith(1, 'x'.repeat(MAX_EXEC_OUTPUT_BYTES + 100));
    const r = await execProbe({ runtime, containerId: 'c1', command: ['x'], timeoutMs: 1000 });
    assert.equal(r.output.length, MAX_EXEC_OUTPUT_BYTES);
  });

  it("turns DeadlineExceeded into a failure with upstream's text", async () => {
    const runtime = newFakeRuntime();
    runtime.run('c1');
    runtime.execAnswer = () => Promise.reject(new RuntimeError('DeadlineExceeded', 'too slow'));
    assert.deepEqual(await execProbe({ runtime, containerId: 'c1', command: ['sh', '-c', 'sleep 5'], timeoutMs: 1000 }), {
      verdict: 'failure',
      output: 'command "sh -c sleep 5" timed out',
    });
  });

  it('times out by itself when the runtime never answers', async () => {
    const runtime = newFakeRuntime();
    runtime.run('c1');
    runtime.execAnswer = () => new Promise(() => undefined);
    assert.deepEqual(await execProbe({ runtime, containerId: 'c1', command: ['hang'], timeoutMs: 1 }), { verdict: 'failure', output: 'command "hang" timed out' });
  });

  it('errors (ProbeError) when the runtime cannot exec', async () => {
    const runtime = newFakeRuntime();
    await assert.rejects(execProbe({ runtime, containerId: 'gone', command: ['x'], timeoutMs: 1000 }), (e: unknown) => e instanceof ProbeError && /not found/.test(e.message));
  });
});

describe('execProbe (process runtime)', () => {
  let root: string;
  let container: ProcessContainer;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'k8ts-exec-probe-'));
    const { runtime } = newProcessRuntime({ stateDir: join(root, 'state'), imagesDir: join(root, 'images'), podCIDR: '127.244.91.0/24', pollIntervalMs: 5 });
    container = await startProcessContainer(runtime, root, { command: ['sh', '-c', 'sleep 300'] });
  });
  after(async () => {
    await container.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs the command in the container: exit codes and output', async () => {
    const { runtime, containerId } = container;
    assert.deepEqual(await execProbe({ runtime, containerId, command: ['sh', '-c', 'echo ok'], timeoutMs: 10_000 }), { verdict: 'success', output: 'ok\n' });
    assert.deepEqual(await execProbe({ runtime, containerId, command: ['sh', '-c', 'echo no >&2; exit 1'], timeoutMs: 10_000 }), { verdict: 'failure', output: 'no\n' });
  });

  it('fails a command that outlives the timeout', async () => {
    const { runtime, containerId } = container;
    assert.deepEqual(await execProbe({ runtime, containerId, command: ['sleep', '30'], timeoutMs: 200 }), { verdict: 'failure', output: 'command "sleep 30" timed out' });
  });

  it('errors for a command that does not exist', async () => {
    const { runtime, containerId } = container;
    await assert.rejects(execProbe({ runtime, containerId, command: ['/nonexistent/probe'], timeoutMs: 10_000 }), ProbeError);
  });
});
