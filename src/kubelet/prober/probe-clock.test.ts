/**
 * The pod's probe clock (ProbeManager.addPod): as upstream's workers tick
 * from when the pod was added, a container's probes come at whole periods
 * from that moment, not at the moment the container started. Only lower
 * bounds are asserted: a busy machine makes timers late, never early.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import { waitFor } from '../../client/testing/wait-for.js';
import type { Pod } from '../types.js';
import type { ProbeManager } from './interface.js';
import { newProbeManager } from './probe-manager.js';
import { exitWith, newFakeRuntime, type FakeRuntime } from './testing/fake-runtime.js';
import { newRecordingEvents } from './testing/recording-events.js';

/** One API second: long enough that the phase of a tick is measurable. */
const SECOND_MS = 200;
/** Timers may fire about a millisecond early. */
const EARLY_MS = 2;

let podCount = 0;
function makePod(containers: Container[]): Pod {
  const n = ++podCount;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `clock-${n}`, namespace: 'default', uid: `clock-uid-${n}` }, spec: { containers } };
}
const execProbe = (name: string, extra: Partial<Probe> = {}): Probe => ({ exec: { command: [name] }, periodSeconds: 1, timeoutSeconds: 10, ...extra });

interface Clocked {
  readonly runtime: FakeRuntime;
  readonly manager: ProbeManager;
  /** When each exec probe ran, by command name (ms since the epoch). */
  readonly at: Map<string, number[]>;
}

function clocked(): Clocked {
  const runtime = newFakeRuntime();
  const at = new Map<string, number[]>();
  runtime.execAnswer = ({ cmd }) => {
    const name = cmd[0] ?? '';
    at.set(name, [...(at.get(name) ?? []), Date.now()]);
    return exitWith(0);
  };
  const manager = newProbeManager({ runtime, events: newRecordingEvents(), onChange: () => undefined, onFailure: () => undefined, secondMs: SECOND_MS });
  return { runtime, manager, at };
}

/** The runtime runs container `id` of the pod's `app`, and the manager is told (what the pod workers do). */
function startApp(c: Clocked, pod: Pod, id: string, startedAtMs?: number): void {
  c.runtime.run(id, startedAtMs);
  c.manager.containerStarted(pod, 'app', id, '127.0.0.1');
}

/** Resolves once the exec probe `name` ran `count` times; returns when each ran. */
async function probedAt(c: Clocked, name: string, count: number): Promise<number[]> {
  await waitFor(() => (c.at.get(name)?.length ?? 0) >= count, { description: `${count} probe(s) ${name}` });
  return c.at.get(name) ?? [];
}

/** Resolves once `ms` have passed since `from` (a condition on the clock, polled). */
const until = (from: number, ms: number): Promise<void> => waitFor(() => Date.now() - from >= ms, { description: `${ms} ms after the clock started` });

describe('probe clock (upstream workers tick from the pod being added)', () => {
  const managers: ProbeManager[] = [];
  const fresh = (): Clocked => {
    const c = clocked();
    managers.push(c.manager);
    return c;
  };
  after(() => {
    for (const m of managers) m.stop();
  });
  /** A fresh manager with a pod of `containers` added: its clock starts at clockStart. */
  const added = (containers: Container[]) => {
    const c = fresh();
    const pod = makePod(containers);
    c.manager.addPod(pod);
    return { c, pod, clockStart: Date.now() };
  };

  it('a container started between ticks is first probed at the next tick of the pod, then every period from it', async () => {
    const { c, pod, clockStart } = added([{ name: 'app', readinessProbe: execProbe('ready') }]);
    await until(clockStart, SECOND_MS * 0.3);
    startApp(c, pod, 'c1');
    const [first, second] = await probedAt(c, 'ready', 2);
    assert.ok(first! >= clockStart + SECOND_MS - EARLY_MS, `first probe ${first! - clockStart} ms after the clock started, not at the tick at ${SECOND_MS}`);
    assert.ok(second! >= clockStart + 2 * SECOND_MS - EARLY_MS, `second probe ${second! - clockStart} ms after the clock started`);
  });

  it('a later addPod does not move the clock, and a replacement container keeps it', async () => {
    const { c, pod, clockStart } = added([{ name: 'app', livenessProbe: execProbe('live') }]);
    await until(clockStart, SECOND_MS * 0.5);
    c.manager.addPod(pod); // every sync calls it again
    startApp(c, pod, 'c1');
    assert.ok((await probedAt(c, 'live', 1))[0]! >= clockStart + SECOND_MS - EARLY_MS);

    const replacedAt = Date.now();
    startApp(c, pod, 'c2');
    const before = c.at.get('live')!.length;
    const tick = clockStart + Math.ceil((replacedAt - clockStart) / SECOND_MS) * SECOND_MS;
    assert.ok((await probedAt(c, 'live', before + 1))[before]! >= tick - EARLY_MS, 'the new container is probed on the pod\'s ticks');
  });

  it('removePod forgets the clock: the pod added again starts a new one', async () => {
    const c = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('again') }]);
    c.manager.addPod(pod);
    await until(Date.now(), SECOND_MS * 0.5);
    c.manager.removePod(pod.metadata.uid ?? '');
    c.manager.addPod(pod);
    const clockStart = Date.now();
    startApp(c, pod, 'c1');
    assert.ok((await probedAt(c, 'again', 2))[1]! >= clockStart + SECOND_MS - EARLY_MS, 'ticks follow the new clock');
  });

  it('initialDelaySeconds: the first probe is at the first tick once the delay has passed', async () => {
    const { c, pod, clockStart } = added([{ name: 'app', readinessProbe: execProbe('delayed', { initialDelaySeconds: 1 }) }]);
    await until(clockStart, SECOND_MS * 0.3);
    const startedAt = Date.now();
    startApp(c, pod, 'c1', startedAt);
    const tick = clockStart + Math.ceil((startedAt + SECOND_MS - clockStart) / SECOND_MS) * SECOND_MS;
    const [first] = await probedAt(c, 'delayed', 1);
    assert.ok(first! >= tick - EARLY_MS, `first probe ${first! - clockStart} ms after the clock, want ≥ ${tick - clockStart}`);
  });

  it('a probe that runs past two ticks: the next look comes once it ends, the other missed tick is dropped', async () => {
    const c = fresh();
    const ends: number[] = [];
    const answer = c.runtime.execAnswer;
    // The fake's first answer takes 2.5 periods (a slow app), the others come at once.
    c.runtime.execAnswer = async (call) => {
      const result = await answer(call);
      if (ends.length === 0) await new Promise((resolve) => setTimeout(resolve, SECOND_MS * 2.5));
      ends.push(Date.now());
      return result;
    };
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('slow') }]);
    const clockStart = Date.now();
    startApp(c, pod, 'c1'); // no addPod: the clock starts now and the first look is at once
    const starts = await probedAt(c, 'slow', 3);
    assert.ok(starts[1]! >= ends[0]!, 'one look at a time');
    // Ticks at 1 and 2 periods passed during the first probe: one look makes up for them, the next waits for the tick at 3.
    assert.ok(starts[2]! >= clockStart + 3 * SECOND_MS - EARLY_MS, `third probe ${starts[2]! - clockStart} ms after the clock started, want ≥ ${3 * SECOND_MS}`);
  });

  it('without addPod the clock starts with the container: it is probed at once', async () => {
    const c = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('direct', { periodSeconds: 100 }) }]);
    startApp(c, pod, 'c1');
    // With a 100-second period, only a probe at the clock's first tick (now) can arrive within the wait.
    await probedAt(c, 'direct', 1);
  });

  it('without addPod, the first probe comes at once however long the workers take to be made after the clock starts', async (t) => {
    const c = fresh();
    const pod = makePod([{ name: 'app', readinessProbe: execProbe('slowmade', { periodSeconds: 100 }) }]);
    // Every look at the clock while the container is announced is 50 ms later than the last (a busy event loop).
    let now = Date.now();
    const clock = t.mock.method(Date, 'now', () => (now += 50));
    try {
      startApp(c, pod, 'c1');
    } finally {
      clock.mock.restore();
    }
    await probedAt(c, 'slowmade', 1);
  });
});
