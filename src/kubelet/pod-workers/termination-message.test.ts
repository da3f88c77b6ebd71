import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ContainerStatus, PodStatus } from 'kubernetes-types/core/v1.js';
import { waitFor } from '../../client/testing/wait-for.js';
import type { Pod } from '../types.js';
import type { RuntimeContainer } from './runtime-pod.js';
import {
  lastLogLines,
  limitTerminationMessages,
  readTerminationMessage,
  terminationMessageMount,
  TERMINATION_MESSAGE_PATH_ANNOTATION,
  TERMINATION_MESSAGE_POLICY_ANNOTATION,
  withTerminationMessages,
} from './termination-message.js';
import { newHarness, shellPod, type Harness } from './testing/harness.js';

const WAIT = { timeoutMs: 20_000, intervalMs: 10 };
const dir = mkdtempSync(join(tmpdir(), 'k8ts-termination-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const logLine = (stream: 'stdout' | 'stderr', text: string): string => `2026-06-01T12:00:00.000000001Z ${stream} F ${text}\n`;

let n = 0;
function exited(options: { exitCode?: number; reason?: string; file?: string; policy?: string; log?: string; message?: string } = {}): RuntimeContainer {
  const id = `c${n++}`;
  const hostPath = join(dir, `${id}.msg`);
  if (options.file !== undefined) writeFileSync(hostPath, options.file);
  const logPath = join(dir, `${id}.log`);
  if (options.log !== undefined) writeFileSync(logPath, options.log);
  const exitCode = options.exitCode ?? 1;
  return {
    id,
    name: 'main',
    metadata: { name: 'main', attempt: 0 },
    state: 'CONTAINER_EXITED',
    createdAt: 1n,
    startedAt: 1n,
    finishedAt: 2n,
    exitCode,
    image: 'img',
    imageRef: '',
    reason: options.reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
    message: options.message ?? '',
    labels: {},
    annotations: {
      [TERMINATION_MESSAGE_PATH_ANNOTATION]: '/dev/termination-log',
      [TERMINATION_MESSAGE_POLICY_ANNOTATION]: options.policy ?? 'File',
    },
    mounts: [{ containerPath: '/dev/termination-log', hostPath, readonly: false }],
    logPath,
    restartCount: 0,
    hash: '',
  };
}

describe('termination messages', () => {
  it('makes an empty 0666 file under <root>/pods/<uid>/containers/<name> and mounts it at terminationMessagePath', async () => {
    const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'uid-1' } } as Pod;
    const mount = await terminationMessageMount(dir, pod, { name: 'main', terminationMessagePath: '/dev/termination-log' });
    assert.ok(mount !== undefined);
    assert.equal(mount.containerPath, '/dev/termination-log');
    assert.equal(mount.readonly, false);
    assert.match(mount.hostPath, new RegExp(`^${dir}/pods/uid-1/containers/main/[0-9a-f]{8}$`));
    assert.equal(statSync(mount.hostPath).size, 0);
    assert.equal(statSync(mount.hostPath).mode & 0o777, 0o666);
    // Each start gets a file of its own.
    const second = await terminationMessageMount(dir, pod, { name: 'main', terminationMessagePath: '/dev/termination-log' });
    assert.notEqual(second?.hostPath, mount.hostPath);
    assert.equal(await terminationMessageMount(dir, pod, { name: 'none' }), undefined);
    assert.equal(existsSync(join(dir, 'pods', 'uid-1', 'containers', 'none')), false);
  });

  it('reads the file, keeping its last 4096 bytes', async () => {
    assert.equal(await readTerminationMessage(exited({ file: 'bye\n' })), 'bye\n');
    const long = 'a'.repeat(1000) + 'b'.repeat(4096);
    assert.equal(await readTerminationMessage(exited({ file: long })), 'b'.repeat(4096));
    assert.equal(await readTerminationMessage(exited({})), '', 'no file: no message');
  });

  it('falls back to the last 80 log lines (at most 2048 bytes) only with FallbackToLogsOnError, a failure and an empty file', async () => {
    const log = Array.from({ length: 100 }, (_, i) => logLine(i % 2 === 0 ? 'stdout' : 'stderr', `line ${i}`)).join('');
    const tail = Array.from({ length: 80 }, (_, i) => `line ${i + 20}\n`).join('');
    assert.equal(await readTerminationMessage(exited({ policy: 'FallbackToLogsOnError', file: '', log })), tail);
    assert.equal(await readTerminationMessage(exited({ policy: 'FallbackToLogsOnError', log })), tail, 'the file is missing');
    assert.equal(await readTerminationMessage(exited({ policy: 'FallbackToLogsOnError', file: 'mine', log })), 'mine', 'the file wins');
    assert.equal(await readTerminationMessage(exited({ policy: 'FallbackToLogsOnError', file: '', log, exitCode: 0 })), '', 'success: no fallback');
    assert.equal(await readTerminationMessage(exited({ policy: 'FallbackToLogsOnError', file: '', log, reason: 'ContainerCannotRun' })), '');
    assert.equal(await readTerminationMessage(exited({ policy: 'File', file: '', log })), '');

    const wide = Array.from({ length: 80 }, (_, i) => logLine('stdout', `${String(i).padStart(2, '0')}${'x'.repeat(98)}`)).join('');
    const message = await lastLogLines(join(dir, 'wide.log'));
    assert.equal(message, '', 'no log file: nothing');
    writeFileSync(join(dir, 'wide.log'), wide);
    const cut = await lastLogLines(join(dir, 'wide.log'));
    assert.equal(cut.length, 2048);
    assert.ok(cut.endsWith(`79${'x'.repeat(98)}\n`));
  });

  it('puts the message after the runtime message, reading each exited container once', async () => {
    const known = new Map<string, string>();
    const c = exited({ file: 'bye', message: 'OOM' });
    const running = { ...exited({ file: 'never read' }), state: 'CONTAINER_RUNNING' as const };
    const pod = await withTerminationMessages({ uid: 'u', sandboxes: [], containers: [c, running] }, known);
    assert.equal(pod.containers[0]!.message, 'OOM: bye');
    assert.equal(pod.containers[1]!.message, '');
    writeFileSync(c.mounts[0]!.hostPath, 'changed');
    const again = await withTerminationMessages({ uid: 'u', sandboxes: [], containers: [c] }, known);
    assert.equal(again.containers[0]!.message, 'OOM: bye');
    await withTerminationMessages({ uid: 'u', sandboxes: [], containers: [] }, known);
    assert.equal(known.size, 0, 'containers gone from the runtime are forgotten');
  });

  it('cuts each terminated message to 12 KiB / containers in the pod status', () => {
    const pod = { metadata: {}, spec: { containers: [{ name: 'a' }, { name: 'b' }], initContainers: [{ name: 'i' }] } } as Pod;
    const terminated = (message: string): ContainerStatus =>
      ({ name: 'a', image: '', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, message } }, lastState: { terminated: { exitCode: 1, message } } }) as ContainerStatus;
    const status: PodStatus = { containerStatuses: [terminated('x'.repeat(5000)), terminated('short')], initContainerStatuses: [terminated('y'.repeat(4097))] };
    limitTerminationMessages(pod, status);
    assert.equal(status.containerStatuses![0]!.state!.terminated!.message!.length, 4096);
    assert.equal(status.containerStatuses![0]!.lastState!.terminated!.message!.length, 4096);
    assert.equal(status.containerStatuses![1]!.state!.terminated!.message, 'short');
    assert.equal(status.initContainerStatuses![0]!.state!.terminated!.message!.length, 4096);
  });
});

describe('termination messages on the process runtime', () => {
  const harnesses: Harness[] = [];
  after(async () => {
    for (const h of harnesses) await h.dispose();
  });
  const statusOf = async (h: Harness, name: string): Promise<ContainerStatus | undefined> => (await h.getPod(name))?.status?.containerStatuses?.[0];
  const withPath = (pod: Pod, policy: 'File' | 'FallbackToLogsOnError' = 'File'): Pod => {
    for (const c of pod.spec!.containers) Object.assign(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: policy });
    return pod;
  };

  it('gives the process the file in K8TS_TERMINATION_MESSAGE_PATH and reports what it wrote as the terminated message', async () => {
    const h = newHarness();
    harnesses.push(h);
    await h.createPod(withPath(shellPod('bye', 'echo bye > "${K8TS_TERMINATION_MESSAGE_PATH:-/dev/termination-log}"; exit 3', { restartPolicy: 'Never' })));
    await waitFor(async () => (await statusOf(h, 'bye'))?.state?.terminated !== undefined, WAIT);
    const terminated = (await statusOf(h, 'bye'))!.state!.terminated!;
    assert.equal(terminated.exitCode, 3);
    assert.equal(terminated.reason, 'Error');
    assert.equal(terminated.message, 'bye\n');
    const uid = (await h.getPod('bye'))!.metadata.uid!;
    assert.equal(readdirSync(join(h.root, 'kubelet', 'pods', uid, 'containers', 'main')).length, 1);
  });

  it('keeps the message of the last run in lastState after a restart', async () => {
    const h = newHarness();
    harnesses.push(h);
    // Each run writes its own file (the kubelet makes a new one per start), stamped with the time.
    await h.createPod(withPath(shellPod('again', `echo run-$(date +%s%N) > "$K8TS_TERMINATION_MESSAGE_PATH"; exit 1`)));
    await waitFor(async () => {
      const s = await statusOf(h, 'again');
      return (s?.restartCount ?? 0) >= 1 && s?.lastState?.terminated !== undefined;
    }, WAIT);
    const s = (await statusOf(h, 'again'))!;
    assert.match(s.lastState!.terminated!.message ?? '', /^run-\d+\n$/);
  });

  it('falls back to the last log lines with FallbackToLogsOnError when the container failed without writing', async () => {
    const h = newHarness();
    harnesses.push(h);
    // One stream: lines on stdout and stderr come through two pipes, in no fixed order.
    await h.createPod(withPath(shellPod('logs', 'echo first >&2; echo second >&2; exit 2', { restartPolicy: 'Never' }), 'FallbackToLogsOnError'));
    await waitFor(async () => (await statusOf(h, 'logs'))?.state?.terminated !== undefined, WAIT);
    assert.equal((await statusOf(h, 'logs'))!.state!.terminated!.message, 'first\nsecond\n');
  });
});
