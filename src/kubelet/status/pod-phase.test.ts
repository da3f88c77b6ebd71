import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../types.js';
import { containersReadyCondition, initializedCondition, readyCondition } from './conditions.js';
import { podPhase } from './pod-phase.js';

const pod = (restartPolicy: string, inits: string[] = [], containers = ['a', 'b'], annotations: Record<string, string> = {}): Pod =>
  ({
    metadata: { name: 'p', annotations },
    spec: { restartPolicy, initContainers: inits.map((name) => ({ name })), containers: containers.map((name) => ({ name })) },
  }) as Pod;
const running = (name: string, ready = true): ContainerStatus => ({ name, image: '', imageID: '', ready, restartCount: 0, state: { running: {} } });
const exited = (name: string, exitCode: number): ContainerStatus => ({ name, image: '', imageID: '', ready: exitCode === 0, restartCount: 0, state: { terminated: { exitCode } } });
const waiting = (name: string, lastExit?: number): ContainerStatus => ({
  name,
  image: '',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { waiting: { reason: 'CrashLoopBackOff' } },
  ...(lastExit !== undefined ? { lastState: { terminated: { exitCode: lastExit } } } : {}),
});

describe('podPhase', () => {
  it('is Pending while init containers run or a container waits, Running while one runs', () => {
    assert.equal(podPhase(pod('Always', ['i']), [running('i')], false, false), 'Pending');
    assert.equal(podPhase(pod('Always'), [running('a'), waiting('b')], false, true), 'Pending');
    assert.equal(podPhase(pod('Always'), [running('a'), waiting('b', 1)], false, true), 'Running');
    assert.equal(podPhase(pod('Always'), [running('a')], false, true), 'Pending');
  });

  it('follows restartPolicy once every container stopped', () => {
    assert.equal(podPhase(pod('Always'), [exited('a', 0), exited('b', 1)], false, true), 'Running');
    assert.equal(podPhase(pod('Never'), [exited('a', 0), exited('b', 0)], false, true), 'Succeeded');
    assert.equal(podPhase(pod('Never'), [exited('a', 0), exited('b', 1)], false, true), 'Failed');
    assert.equal(podPhase(pod('OnFailure'), [exited('a', 0), exited('b', 1)], false, true), 'Running');
    assert.equal(podPhase(pod('OnFailure'), [exited('a', 0), exited('b', 0)], false, true), 'Succeeded');
  });

  it('fails a Never pod whose init container failed, and makes a terminal pod Succeeded or Failed whatever its policy', () => {
    assert.equal(podPhase(pod('Never', ['i']), [exited('i', 1)], false, false), 'Failed');
    assert.equal(podPhase(pod('Always'), [exited('a', 143), exited('b', 0)], true, true), 'Failed');
    assert.equal(podPhase(pod('Always'), [exited('a', 0), exited('b', 0)], true, true), 'Succeeded');
    assert.equal(podPhase(pod('Always', [], ['a', 'b'], { 'kubernetes.io/config.source': 'file' }), [exited('a', 0), exited('b', 0)], true, true), 'Running');
  });
});

describe('conditions', () => {
  it('lists unready and unknown containers as upstream words it', () => {
    const p = pod('Always', [], ['a', 'b', 'c']);
    assert.deepEqual(containersReadyCondition(p, [running('a', false), running('b', false)], 'Running'), {
      type: 'ContainersReady',
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unknown status: [c], containers with unready status: [a b]',
    });
    assert.deepEqual(readyCondition(p, [], [running('a'), running('b'), running('c')], 'Running'), { type: 'Ready', status: 'True' });
  });

  it('holds Ready on readiness gates', () => {
    const p = { ...pod('Always', [], ['a']), spec: { containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'example.com/gate' }] } } as Pod;
    assert.deepEqual(readyCondition(p, [], [running('a')], 'Running'), {
      type: 'Ready',
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'corresponding condition of pod readiness gate "example.com/gate" does not exist.',
    });
  });

  it('reports init containers that have not completed', () => {
    const p = pod('Always', ['i1', 'i2']);
    assert.deepEqual(initializedCondition(p, [exited('i1', 0), running('i2', false)], 'Pending'), {
      type: 'Initialized',
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [i2]',
    });
    assert.equal(initializedCondition(p, [exited('i1', 0), exited('i2', 0)], 'Pending').status, 'True');
  });
});
