import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import { Registry } from 'prom-client';
import { waitFor } from '../../client/testing/wait-for.js';
import type { Pod } from '../types.js';
import type { ProbeManager } from './interface.js';
import { newProbeManager } from './probe-manager.js';
import { exitWith, newFakeRuntime, type FakeRuntime } from './testing/fake-runtime.js';
import { newRecordingEvents } from './testing/recording-events.js';
import { startGrpcHealthServer, startHttpServer, type GrpcHealthServer, type RunningServer } from './testing/test-servers.js';

/** One API second in these tests. */
const SECOND_MS = 20;
/** Long enough that a healthy probe never times out on a busy machine (50 × 20 ms). */
const SLACK = 50;

let podCount = 0;
function makePod(containers: Container[]): Pod {
  const n = ++podCount;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${n}`, namespace: 'default', uid: `uid-${n}` }, spec: { containers } };
}
const uidOf = (pod: Pod): string => pod.metadata.uid ?? '';

/** An exec probe whose answer is the fake runtime's (the command names the container and kind). */
const execProbe = (name: string, extra: Partial<Probe> = {}): Probe => ({ exec: { command: [name] }, periodSeconds: 1, timeoutSeconds: SLACK, ...extra });

interface Harness {
  readonly runtime: FakeRuntime;
  readonly manager: ProbeManager;
  readonly events: ReturnType<typeof newRecordingEvents>['events'];
  readonly changes: string[];
  readonly failures: { podUid: string; containerName: string; containerId: string; kind: string; message: string }[];
  /** The answer (exit code) per exec command name; default 0. */
  readonly answers: Map<string, number>;
  /** Exec calls per command name. */
  calls(name: string): number;
}

function harness(registry?: Registry): Harness {
  const runtime = newFakeRuntime();
  const answers = new Map<string, number>();
  runtime.execAnswer = ({ cmd }) => exitWith(answers.get(cmd[0] ?? '') ?? 0, '', `${cmd[0]} says no`);
  const recorder = newRecordingEvents();
  const changes: string[] = [];
  const failures: Harness['failures'] = [];
  const manager = newProbeManager({
    runtime,
    events: recorder,
    onChange: (podUid) => changes.push(podUid),
    onFailure: (podUid, containerName, containerId, kind, message) => failures.push({ podUid, containerName, containerId, kind, message }),
    secondMs: SECOND_MS,
    ...(registry ? { registry } : {}),
  });
  return {
    runtime,
    manager,
    events: recorder.events,
    changes,
    failures,
    answers,
    calls: (name) => runtime.execCalls.filter((c) => c.cmd[0] === name).length,
  };
}

describe('probe manager (fake runtime, exec probes)', () => {
  const managers: ProbeManager[] = [];
  const fresh = (registry?: Registry): Harness => {
    const h = harness(registry);
    managers.push(h.manager);
    return h;
  };
  after(() => {
    for (const m of managers) m.stop();
  });

  it('without probes: ready and started once running, not before, not after it stops', () => {
    const h = fresh();
    const pod = makePod([{ name: 'app' }]);
    assert.equal(h.manager.isReady(uidOf(pod), 'app'), false);
    assert.equal(h.manager.isStarted(uidOf(pod), 'app'), false);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    assert.equal(h.manager.isReady(uidOf(pod), 'app'), true);
    assert.equal(h.manager.isStarted(uidOf(pod), 'app'), true);
    h.manager.containerStopped(uidOf(pod), 'app');
    assert.equal(h.manager.isReady(uidOf(pod), 'app'), false);
    assert.equal(h.manager.isStarted(uidOf(pod), 'app'), false);
  });

  it('readiness starts false, follows the probe with its thresholds, and flips back', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('ready', { successThreshold: 2, failureThreshold: 2 }) }]);
    const uid = uidOf(pod);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    assert.equal(h.manager.isReady(uid, 'app'), false);
    assert.equal(h.manager.isStarted(uid, 'app'), true);
    await waitFor(() => h.manager.isReady(uid, 'app'), { description: 'ready' });
    assert.ok(h.calls('ready') >= 2, 'successThreshold 2 needs two successes');
    assert.deepEqual(h.changes, [uid]);

    h.answers.set('ready', 1);
    const before = h.calls('ready');
    await waitFor(() => !h.manager.isReady(uid, 'app'), { description: 'not ready' });
    assert.ok(h.calls('ready') - before >= 2, 'failureThreshold 2 needs two failures');
    assert.ok(h.events.some((e) => e.reason === 'Unhealthy' && e.message === 'Readiness probe failed: ready says no'));
    assert.equal(h.failures.length, 0, 'readiness never kills');

    h.answers.set('ready', 0);
    await waitFor(() => h.manager.isReady(uid, 'app'), { description: 'ready again' });
    assert.deepEqual(h.changes, [uid, uid, uid]);
  });

  it('kills after failureThreshold liveness failures, then holds until a new container', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'app', livenessProbe: execProbe('live', { failureThreshold: 3 }) }]);
    const uid = uidOf(pod);
    h.answers.set('live', 1);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.failures.length === 1, { description: 'onFailure' });
    assert.deepEqual(h.failures[0], { podUid: uid, containerName: 'app', containerId: 'c1', kind: 'liveness', message: 'Container app failed liveness probe, will be restarted' });
    assert.equal(h.calls('live'), 3);
    assert.equal(h.events.filter((e) => e.message === 'Liveness probe failed: live says no').length, 3);
    assert.equal(h.manager.isReady(uid, 'app'), true, 'liveness does not touch readiness');

    // The pod workers restart it: a new id resumes probing; the held worker never probed again meanwhile.
    h.answers.set('live', 0);
    h.runtime.run('c2');
    h.manager.containerStarted(pod, 'app', 'c2', '127.0.0.1');
    await waitFor(() => h.runtime.execCalls.filter((c) => c.containerId === 'c2').length >= 3, { description: 'probes of c2' });
    assert.equal(h.runtime.execCalls.filter((c) => c.containerId === 'c1').length, 3);
    assert.equal(h.failures.length, 1);
  });

  it('a startup probe holds off liveness and readiness until it succeeds, then readiness runs at once', async () => {
    const h = fresh();
    const pod = makePod([
      {
        name: 'app',
        startupProbe: execProbe('startup', { failureThreshold: 1000 }),
        livenessProbe: execProbe('liveness', { failureThreshold: 1 }),
        readinessProbe: execProbe('readiness', { periodSeconds: 100_000 }),
      },
    ]);
    const uid = uidOf(pod);
    h.answers.set('startup', 1);
    h.answers.set('liveness', 1); // would kill at once if it ran
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.calls('startup') >= 5, { description: 'startup probes' });
    assert.equal(h.manager.isStarted(uid, 'app'), false);
    assert.equal(h.manager.isReady(uid, 'app'), false);
    assert.equal(h.calls('liveness'), 0);
    assert.equal(h.calls('readiness'), 0);
    assert.equal(h.failures.length, 0);

    h.answers.set('liveness', 0);
    h.answers.set('startup', 0);
    await waitFor(() => h.manager.isStarted(uid, 'app'), { description: 'started' });
    // Readiness has a period of 100 000 s: only the trigger on startup success can have run it.
    await waitFor(() => h.manager.isReady(uid, 'app'), { description: 'ready' });
    await waitFor(() => h.calls('liveness') >= 1, { description: 'liveness runs' });
    const startups = h.calls('startup');
    await waitFor(() => h.calls('liveness') >= 4, { description: 'more liveness probes' });
    assert.equal(h.calls('startup'), startups, 'the startup probe stops once it has succeeded');
  });

  it('kills after failureThreshold startup failures', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'app', startupProbe: execProbe('startup', { failureThreshold: 2 }), livenessProbe: execProbe('liveness') }]);
    h.answers.set('startup', 1);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.failures.length === 1, { description: 'onFailure' });
    assert.equal(h.failures[0]!.kind, 'startup');
    assert.equal(h.failures[0]!.message, 'Container app failed startup probe, will be restarted');
    assert.equal(h.calls('liveness'), 0);
    assert.equal(h.manager.isStarted(uidOf(pod), 'app'), false);
  });

  it('waits initialDelaySeconds after the container started', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('ready', { initialDelaySeconds: 10 }) }]);
    const startedAt = Date.now();
    h.runtime.run('c1', startedAt);
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.manager.isReady(uidOf(pod), 'app'), { description: 'ready' });
    assert.ok(Date.now() - startedAt >= 10 * SECOND_MS, 'not before the initial delay');

    // A container that started long ago (an adopted one) is probed at once.
    const old = makePod([{ name: 'app', readinessProbe: execProbe('old', { initialDelaySeconds: 100_000 }) }]);
    h.runtime.run('c-old', Date.now() - 100_000 * SECOND_MS);
    h.manager.containerStarted(old, 'app', 'c-old', '127.0.0.1');
    await waitFor(() => h.manager.isReady(uidOf(old), 'app'), { description: 'adopted container ready' });
  });

  it('never probes an exited container: it is neither ready nor started, and its probes stop', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('ready'), livenessProbe: execProbe('live') }]);
    const uid = uidOf(pod);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.manager.isReady(uid, 'app'), { description: 'ready' });
    h.runtime.containers.get('c1')!.state = 'CONTAINER_EXITED';
    await waitFor(() => !h.manager.isReady(uid, 'app'), { description: 'not ready after exit' });
    assert.equal(h.manager.isStarted(uid, 'app'), false);
    assert.equal(h.changes.at(-1), uid);
    assert.equal(h.failures.length, 0);

    // Another pod's probes are the clock: they run several times while c1's do not.
    const clock = makePod([{ name: 'clock', readinessProbe: execProbe('tick') }]);
    h.runtime.run('c-clock');
    const frozen = h.runtime.execCalls.filter((c) => c.containerId === 'c1').length;
    h.manager.containerStarted(clock, 'clock', 'c-clock', '127.0.0.1');
    await waitFor(() => h.calls('tick') >= 5, { description: 'clock ticks' });
    assert.equal(h.runtime.execCalls.filter((c) => c.containerId === 'c1').length, frozen);
  });

  it('a container in an unknown state is neither ready nor started, and is not probed, until it runs again', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('ready') }]);
    const uid = uidOf(pod);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.manager.isReady(uid, 'app'), { description: 'ready' });
    h.runtime.containers.get('c1')!.state = 'CONTAINER_UNKNOWN';
    await waitFor(() => !h.manager.isStarted(uid, 'app'), { description: 'not started while unknown' });
    assert.equal(h.manager.isReady(uid, 'app'), false);
    const frozen = h.calls('ready');
    h.runtime.containers.get('c1')!.state = 'CONTAINER_RUNNING';
    await waitFor(() => h.manager.isReady(uid, 'app'), { description: 'ready again' });
    assert.ok(h.calls('ready') > frozen, 'readiness is earned again by a probe');
  });

  it('a probe that times out fails with upstream text', async () => {
    const h = fresh();
    h.runtime.execAnswer = () => new Promise(() => undefined); // never answers: the handler's guard times out
    const pod = makePod([{ name: 'app', livenessProbe: { exec: { command: ['sh', '-c', 'sleep 9'] }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1 } }]);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.failures.length === 1, { description: 'onFailure' });
    assert.equal(h.events[0]!.message, 'Liveness probe failed: command "sh -c sleep 9" timed out');
  });

  it('containerStarted again with the same id keeps the results; removePod and stop end every worker', async () => {
    const h = fresh();
    const pod = makePod([{ name: 'a', readinessProbe: execProbe('a') }, { name: 'b', readinessProbe: execProbe('b') }]);
    const uid = uidOf(pod);
    h.runtime.run('ca');
    h.runtime.run('cb');
    h.manager.containerStarted(pod, 'a', 'ca', '127.0.0.1');
    h.manager.containerStarted(pod, 'b', 'cb', '127.0.0.1');
    await waitFor(() => h.manager.isReady(uid, 'a') && h.manager.isReady(uid, 'b'), { description: 'both ready' });
    h.manager.containerStarted(pod, 'a', 'ca', '127.0.0.1');
    assert.equal(h.manager.isReady(uid, 'a'), true);

    h.manager.removePod(uid);
    assert.equal(h.manager.isReady(uid, 'a'), false);
    const frozen = h.runtime.execCalls.length;
    const clock = makePod([{ name: 'clock', readinessProbe: execProbe('tick') }]);
    h.runtime.run('c-clock');
    h.manager.containerStarted(clock, 'clock', 'c-clock', '127.0.0.1');
    await waitFor(() => h.calls('tick') >= 5, { description: 'clock ticks' });
    assert.equal(h.runtime.execCalls.length - h.calls('tick'), frozen);

    h.manager.stop();
    const ticks = h.calls('tick');
    h.manager.containerStarted(pod, 'a', 'ca', '127.0.0.1');
    assert.equal(h.manager.isReady(uid, 'a'), false, 'a stopped manager takes no containers');
    const other = fresh();
    const otherClock = makePod([{ name: 'clock', readinessProbe: execProbe('tick') }]);
    other.runtime.run('c-clock');
    other.manager.containerStarted(otherClock, 'clock', 'c-clock', '127.0.0.1');
    await waitFor(() => other.calls('tick') >= 5, { description: 'another clock ticks' });
    assert.equal(h.calls('tick'), ticks);
  });

  it('counts probes in prober_probe_total with upstream labels, and forgets a stopped worker', async () => {
    const registry = new Registry();
    const h = fresh(registry);
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('ready') }]);
    h.runtime.run('c1');
    h.manager.containerStarted(pod, 'app', 'c1', '127.0.0.1');
    await waitFor(() => h.manager.isReady(uidOf(pod), 'app'), { description: 'ready' });
    const text = await registry.metrics();
    assert.match(text, new RegExp(`prober_probe_total\\{probe_type="Readiness",container="app",pod="${pod.metadata.name}",namespace="default",pod_uid="${uidOf(pod)}",result="successful"\\} [1-9]`));
    assert.match(text, /prober_probe_duration_seconds_count\{probe_type="Readiness",container="app",/);
    h.manager.removePod(uidOf(pod));
    assert.doesNotMatch(await registry.metrics(), /pod_uid="/);
  });
});

describe('probe manager (real HTTP and gRPC servers)', () => {
  let server: RunningServer;
  let grpc: GrpcHealthServer;
  let healthy = true;
  before(async () => {
    server = await startHttpServer((_req, res) => {
      res.statusCode = healthy ? 200 : 500;
      res.end();
    });
    grpc = await startGrpcHealthServer();
  });
  after(async () => {
    await Promise.all([server.close(), grpc.close()]);
  });

  it('httpGet on a named port: readiness flips with the server, liveness kills with its message in the event', async () => {
    const h = harness();
    try {
      const probe = (extra: Partial<Probe>): Probe => ({ httpGet: { port: 'http', path: '/healthz' }, periodSeconds: 1, timeoutSeconds: SLACK, ...extra });
      const pod = makePod([{ name: 'web', ports: [{ name: 'http', containerPort: server.port }], readinessProbe: probe({}), livenessProbe: probe({ failureThreshold: 5 }) }]);
      const uid = uidOf(pod);
      h.runtime.run('c1');
      h.manager.containerStarted(pod, 'web', 'c1', '127.0.0.1');
      await waitFor(() => h.manager.isReady(uid, 'web'), { description: 'ready' });
      healthy = false;
      await waitFor(() => !h.manager.isReady(uid, 'web'), { description: 'not ready' });
      await waitFor(() => h.failures.length === 1, { description: 'killed' });
      assert.equal(h.failures[0]!.kind, 'liveness');
      assert.ok(h.events.some((e) => e.message === 'Liveness probe failed: HTTP probe failed with statuscode: 500'));
      assert.ok(h.events.some((e) => e.message === 'Readiness probe failed: HTTP probe failed with statuscode: 500'));
    } finally {
      healthy = true;
      h.manager.stop();
    }
  });

  it('grpc: SERVING is ready, NOT_SERVING and an unknown service are not', async () => {
    const h = harness();
    try {
      grpc.setStatus('', 'SERVING');
      grpc.setStatus('db', 'SERVING');
      const probe = (service?: string): Probe => ({ grpc: { port: grpc.port, ...(service ? { service } : {}) }, periodSeconds: 1, timeoutSeconds: SLACK, failureThreshold: 1 });
      const pod = makePod([
        { name: 'whole', readinessProbe: probe() },
        { name: 'db', readinessProbe: probe('db') },
        { name: 'unknown', readinessProbe: probe('nope') },
      ]);
      const uid = uidOf(pod);
      for (const name of ['whole', 'db', 'unknown']) {
        h.runtime.run(`c-${name}`);
        h.manager.containerStarted(pod, name, `c-${name}`, '127.0.0.1');
      }
      await waitFor(() => h.manager.isReady(uid, 'whole') && h.manager.isReady(uid, 'db'), { description: 'ready', timeoutMs: 10_000 });
      await waitFor(() => h.events.some((e) => e.message === 'Readiness probe failed: error: health rpc probe failed: rpc error: code = NotFound desc = unknown service'), {
        description: 'unknown service event',
        timeoutMs: 10_000,
      });
      assert.equal(h.manager.isReady(uid, 'unknown'), false);
      grpc.setStatus('db', 'NOT_SERVING');
      await waitFor(() => !h.manager.isReady(uid, 'db'), { description: 'db not ready', timeoutMs: 10_000 });
      assert.ok(h.events.some((e) => e.message === 'Readiness probe failed: service unhealthy (responded with "NOT_SERVING")'));
      assert.equal(h.manager.isReady(uid, 'whole'), true);
    } finally {
      h.manager.stop();
    }
  });
});
