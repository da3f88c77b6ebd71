import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container } from '../runtime/interface.js';
import type { Pod } from '../types.js';
import { lastTerminatedOf, previousAttempt, waitingReasonOf } from './container-lookup.js';

const attempt = (id: string, n: number): Container =>
  ({ id, podSandboxId: 's', metadata: { name: 'main', attempt: n }, image: 'i', imageRef: '', state: 'CONTAINER_EXITED', createdAt: BigInt(n), labels: {}, annotations: {} }) as Container;
const pod = (statuses: object[]): Pod => ({ metadata: { name: 'p' }, spec: { containers: [] }, status: { containerStatuses: statuses } }) as unknown as Pod;

describe('the attempt `kubectl logs --previous` reads', () => {
  const newestFirst = [attempt('c2', 2), attempt('c1', 1)];

  it("is the one the pod's status names as lastState.terminated (a crashed container waiting out its back-off: the newest)", () => {
    const crashLooping = pod([{ name: 'main', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { containerID: 'k8ts-process://c2', exitCode: 1 } } }]);
    assert.equal(lastTerminatedOf(crashLooping, 'main'), 'c2');
    assert.equal(previousAttempt(newestFirst, lastTerminatedOf(crashLooping, 'main'))?.id, 'c2');
  });

  it('is none when the status has no lastState.terminated for the container', () => {
    const firstRun = pod([{ name: 'main', state: { running: {} }, lastState: {} }]);
    assert.equal(lastTerminatedOf(firstRun, 'main'), null);
    assert.equal(previousAttempt(newestFirst, null), undefined);
  });

  it('is the attempt before the newest when the status does not say', () => {
    assert.equal(lastTerminatedOf(pod([]), 'main'), undefined);
    assert.equal(lastTerminatedOf(pod([{ name: 'other', lastState: { terminated: { containerID: 'x://c9' } } }]), 'main'), undefined);
    assert.equal(previousAttempt(newestFirst, undefined)?.id, 'c1');
  });

  it('is the newest exited attempt when the one the status names is gone (replaced by a newer crash the status does not show yet)', () => {
    assert.equal(previousAttempt(newestFirst, 'c0')?.id, 'c2');
    const restarted = [{ ...attempt('c3', 3), state: 'CONTAINER_RUNNING' } as Container, ...newestFirst];
    assert.equal(previousAttempt(restarted, 'c0')?.id, 'c2');
  });

  it('is none when the attempt the status names is gone and no attempt has exited', () => {
    assert.equal(previousAttempt([{ ...attempt('c3', 3), state: 'CONTAINER_RUNNING' } as Container], 'c0'), undefined);
    assert.equal(previousAttempt([], 'c0'), undefined);
  });
});

describe('why a container waits (the error of logs for a container not started)', () => {
  it("is the waiting reason the pod's status gives it, init and ephemeral containers included", () => {
    const initializing = {
      metadata: { name: 'p' },
      spec: { containers: [] },
      status: {
        initContainerStatuses: [{ name: 'setup', state: { running: {} } }],
        containerStatuses: [{ name: 'main', state: { waiting: { reason: 'PodInitializing' } } }],
        ephemeralContainerStatuses: [{ name: 'debugger', state: { waiting: { reason: 'ContainerCreating' } } }],
      },
    } as unknown as Pod;
    assert.equal(waitingReasonOf(initializing, 'main'), 'PodInitializing');
    assert.equal(waitingReasonOf(initializing, 'debugger'), 'ContainerCreating');
    assert.equal(waitingReasonOf(initializing, 'setup'), undefined);
    assert.equal(waitingReasonOf(pod([]), 'main'), undefined);
    assert.equal(waitingReasonOf(pod([{ name: 'main', state: { waiting: { reason: '' } } }]), 'main'), undefined);
  });
});
