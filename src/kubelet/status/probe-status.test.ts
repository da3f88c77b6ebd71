import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../types.js';
import { withProbeState } from './probe-status.js';

const EARLIER = '2026-01-01T00:00:00Z';
const NOW = new Date('2026-02-02T00:00:00Z');

function pod(extra: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'x' }, { name: 'side', image: 'x' }], ...extra } };
}

function runningStatus(ready: boolean): PodStatus {
  const c = (name: string): NonNullable<PodStatus['containerStatuses']>[number] => ({
    name,
    image: 'x',
    imageID: '',
    restartCount: 0,
    ready,
    started: true,
    state: { running: { startedAt: EARLIER } },
  });
  const s = ready ? 'True' : 'False';
  return {
    phase: 'Running',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: EARLIER },
      { type: 'Initialized', status: 'True', lastTransitionTime: EARLIER },
      { type: 'Ready', status: s, lastTransitionTime: EARLIER, ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status: [app side]' }) },
      { type: 'ContainersReady', status: s, lastTransitionTime: EARLIER, ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status: [app side]' }) },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: EARLIER },
    ],
    podIP: '127.0.0.5',
    containerStatuses: [c('app'), c('side')],
  };
}

const probes = (unready: string[], notStarted: string[] = []) => ({
  isReady: (name: string) => !unready.includes(name),
  isStarted: (name: string) => !notStarted.includes(name),
});

describe('withProbeState', () => {
  it('changes nothing when the probes agree with the status', () => {
    assert.equal(withProbeState(pod(), runningStatus(true), probes([]), NOW), undefined);
    assert.equal(withProbeState(pod(), runningStatus(false), probes(['app', 'side']), NOW), undefined);
  });

  it('marks an unready container and turns ContainersReady and Ready False with their transition time, leaving the rest', () => {
    const before = runningStatus(true);
    const after = withProbeState(pod(), before, probes(['side']), NOW)!;
    assert.deepEqual(after.containerStatuses?.map((c) => [c.name, c.started, c.ready]), [['app', true, true], ['side', true, false]]);
    const ready = after.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual(ready, { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [side]', lastTransitionTime: '2026-02-02T00:00:00Z' });
    assert.equal(after.conditions?.find((c) => c.type === 'ContainersReady')?.status, 'False');
    assert.deepEqual(after.conditions?.map((c) => c.type), before.conditions?.map((c) => c.type), 'the same conditions in the same order');
    assert.equal(after.conditions?.find((c) => c.type === 'Initialized')?.lastTransitionTime, EARLIER);
    assert.equal(after.podIP, '127.0.0.5');
    assert.equal(before.containerStatuses?.[1]?.ready, true, 'the status given is not changed');
  });

  it('turns the pod Ready when every container is, and counts started from the startup probe', () => {
    const after = withProbeState(pod(), runningStatus(false), probes([]), NOW)!;
    assert.equal(after.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(after.conditions?.find((c) => c.type === 'Ready')?.reason, undefined);
    const notStarted = withProbeState(pod(), runningStatus(true), probes([], ['app']), NOW)!;
    assert.deepEqual(notStarted.containerStatuses?.[0], { ...runningStatus(true).containerStatuses![0]!, started: false, ready: false });
  });

  it('keeps Ready False while a readiness gate is not True', () => {
    const gated = pod({ readinessGates: [{ conditionType: 'example.com/lb' }] });
    const status = runningStatus(false);
    status.conditions!.push({ type: 'example.com/lb', status: 'False' });
    const after = withProbeState(gated, status, probes([]), NOW)!;
    assert.equal(after.conditions?.find((c) => c.type === 'ContainersReady')?.status, 'True');
    const ready = after.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'ReadinessGatesNotReady');
  });

  it('leaves a finished pod, one with no phase, and a container not running alone', () => {
    assert.equal(withProbeState(pod(), { ...runningStatus(true), phase: 'Succeeded' }, probes(['app']), NOW), undefined);
    assert.equal(withProbeState(pod(), { ...runningStatus(true), phase: 'Failed' }, probes(['app']), NOW), undefined);
    assert.equal(withProbeState(pod(), {}, probes(['app']), NOW), undefined);
    const waiting = runningStatus(false);
    for (const c of waiting.containerStatuses!) {
      c.state = { waiting: { reason: 'CrashLoopBackOff' } };
      c.started = false;
    }
    assert.equal(withProbeState(pod(), waiting, probes([]), NOW), undefined, 'a container that is not running is neither started nor ready');
  });

  it('judges an init container that is not a sidecar by its exit, a sidecar by its probes', () => {
    const spec = pod({ initContainers: [{ name: 'setup', image: 'x' }, { name: 'proxy', image: 'x', restartPolicy: 'Always' }] });
    const status = runningStatus(true);
    status.initContainerStatuses = [
      { name: 'setup', image: 'x', imageID: '', restartCount: 0, ready: true, started: false, state: { terminated: { exitCode: 0, startedAt: EARLIER, finishedAt: EARLIER } } },
      { name: 'proxy', image: 'x', imageID: '', restartCount: 0, ready: true, started: true, state: { running: { startedAt: EARLIER } } },
    ];
    const after = withProbeState(spec, status, probes(['setup', 'proxy']), NOW)!;
    assert.deepEqual(after.initContainerStatuses?.map((c) => [c.name, c.ready]), [['setup', true], ['proxy', false]]);
    assert.match(after.conditions?.find((c) => c.type === 'Ready')?.message ?? '', /unready status: \[proxy\]/);
  });
});
