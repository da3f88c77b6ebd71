import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint, type ClusterEvent, type ClusterEventWithHint } from '../framework/cluster-event.js';
import type { Framework, QueuedPodInfo } from '../framework/interfaces.js';
import { Code, Status, pending, unschedulable } from '../framework/status.js';
import type { Pod } from '../framework/types.js';
import type { SchedulingQueueOptions } from './interface.js';
import { PriorityQueue, newPriorityQueue } from './priority-queue.js';
import { newFakeFramework, type FakeFrameworkOptions } from './testing/fake-framework.js';

interface PodOptions {
  priority?: number;
  gates?: string[];
  labels?: Record<string, string>;
  namespace?: string;
  schedulerName?: string;
  nominated?: string;
  requiredAffinityTo?: Record<string, string>;
}

function makePod(name: string, o: PodOptions = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-${name}`, ...(o.labels === undefined ? {} : { labels: o.labels }) },
    spec: {
      containers: [{ name: 'c' }],
      ...(o.priority === undefined ? {} : { priority: o.priority }),
      ...(o.gates === undefined ? {} : { schedulingGates: o.gates.map((g) => ({ name: g })) }),
      ...(o.schedulerName === undefined ? {} : { schedulerName: o.schedulerName }),
      ...(o.requiredAffinityTo === undefined
        ? {}
        : { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: o.requiredAffinityTo }, topologyKey: 'zone' }] } } }),
    },
    status: o.nominated === undefined ? {} : { nominatedNodeName: o.nominated },
  };
}

class FakeClock {
  t = 1_000_000;
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

const NODE_ADD: ClusterEvent = { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' };
const NODE_LABEL: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeLabel, label: 'NodeUpdate' };

/** SchedulingGates as upstream: gates the pod while it has gates; registered for gates eliminated. */
const schedulingGates: FakeFrameworkOptions = {
  preEnqueue: (pod) => ((pod.spec?.schedulingGates ?? []).length > 0 ? new Status(Code.UnschedulableAndUnresolvable, ['waiting for scheduling gates']).withPlugin('SchedulingGates') : undefined),
};

function setup(fw: FakeFrameworkOptions = {}, options: SchedulingQueueOptions = {}): { q: PriorityQueue; clock: FakeClock; framework: Framework & { eventsToRegisterCalls: number } } {
  const clock = new FakeClock();
  const framework = newFakeFramework({
    ...schedulingGates,
    ...fw,
    events: {
      SchedulingGates: [{ event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodSchedulingGatesEliminated } }],
      ...fw.events,
    },
  });
  const q = newPriorityQueue(new Map([['default-scheduler', framework]]), { now: clock.now, ...options });
  return { q, clock, framework };
}

async function popName(q: PriorityQueue): Promise<string | undefined> {
  return (await q.pop())?.podInfo.pod.metadata.name;
}

/** Pop the pod, reject it by `plugins` (or Error when none), and put it back. */
async function failCycle(q: PriorityQueue, plugins: string[] = [], pendingPlugins: string[] = []): Promise<QueuedPodInfo> {
  const info = await q.pop();
  assert.ok(info);
  for (const p of plugins) info.unschedulablePlugins.add(p);
  for (const p of pendingPlugins) info.pendingPlugins.add(p);
  q.addUnschedulableIfNotPresent(info, q.schedulingCycle());
  q.done(info.podInfo.uid);
  return info;
}

describe('PriorityQueue ordering and pop', () => {
  it('pops by priority, then by the time the pod was added', async () => {
    const { q, clock } = setup();
    q.add(makePod('low', { priority: 1 }));
    clock.advance(1);
    q.add(makePod('high-late', { priority: 10 }));
    clock.advance(1);
    q.add(makePod('mid', { priority: 5 }));
    clock.advance(1);
    q.add(makePod('high-later', { priority: 10 }));
    const order = [await popName(q), await popName(q), await popName(q), await popName(q)];
    assert.deepEqual(order, ['high-late', 'high-later', 'mid', 'low']);
    assert.equal(q.schedulingCycle(), 4);
  });

  it('counts attempts and marks popped pods in flight until done', async () => {
    const { q } = setup();
    q.add(makePod('a'));
    const info = await q.pop();
    assert.equal(info?.attempts, 1);
    assert.equal(q.queueOf('uid-a'), 'inFlight');
    q.done('uid-a');
    assert.equal(q.queueOf('uid-a'), undefined);
  });

  it('pop waits for a pod, and hands the best of a batch of adds', async () => {
    const { q, clock } = setup();
    const popped = q.pop();
    q.add(makePod('first', { priority: 1 }));
    clock.advance(1);
    q.add(makePod('better', { priority: 2 }));
    assert.equal((await popped)?.podInfo.pod.metadata.name, 'better');
    assert.equal(await popName(q), 'first');
  });

  it('close resolves waiting pops with undefined, and later pops too', async () => {
    const { q } = setup();
    const waiting = [q.pop(), q.pop()];
    q.close();
    assert.deepEqual(await Promise.all(waiting), [undefined, undefined]);
    q.add(makePod('a'));
    assert.equal(await q.pop(), undefined);
  });

  it('uses the first profile’s order and each pod’s own profile for PreEnqueue and events', async () => {
    const clock = new FakeClock();
    const gateAll = newFakeFramework({ preEnqueue: () => unschedulable('no').withPlugin('Gate') });
    const q = newPriorityQueue(new Map([['default-scheduler', newFakeFramework()], ['gated-scheduler', gateAll]]), { now: clock.now });
    q.add(makePod('a', { schedulerName: 'gated-scheduler' }));
    q.add(makePod('b'));
    q.add(makePod('c', { schedulerName: 'unknown' }));
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    assert.deepEqual(q.pendingPods(), { active: 2, backoff: 0, unschedulable: 0, gated: 1 });
  });

  it('reads the frameworks map lazily, so the runtime may fill it after building the queue', async () => {
    const clock = new FakeClock();
    const frameworks = new Map<string, Framework>();
    const q = newPriorityQueue(frameworks, { now: clock.now });
    const lowFirst = (a: QueuedPodInfo, b: QueuedPodInfo): boolean => (a.podInfo.pod.spec?.priority ?? 0) < (b.podInfo.pod.spec?.priority ?? 0);
    frameworks.set('default-scheduler', newFakeFramework({ queueSortLess: lowFirst }));
    q.add(makePod('high', { priority: 9 }));
    q.add(makePod('low', { priority: 1 }));
    assert.equal(await popName(q), 'low');
  });

  it('orders pods by the default PrioritySort without frameworks', async () => {
    const clock = new FakeClock();
    const q = newPriorityQueue(new Map(), { now: clock.now });
    q.add(makePod('a', { priority: 1 }));
    q.add(makePod('b', { priority: 2 }));
    assert.equal(await popName(q), 'b');
  });
});

describe('PriorityQueue backoff', () => {
  it('doubles the backoff per attempt up to the maximum', () => {
    const { q } = setup({}, { podInitialBackoffMs: 1000, podMaxBackoffMs: 10_000 });
    const info = { attempts: 0 } as QueuedPodInfo;
    const durations = [0, 1, 2, 3, 4, 5, 40].map((attempts) => q.backoffDuration({ ...info, attempts }));
    assert.deepEqual(durations, [0, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('sends an Error pod to backoffQ and on to activeQ once its backoff expired', async () => {
    const { q, clock } = setup();
    q.add(makePod('a'));
    await failCycle(q);
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
    assert.deepEqual(q.pendingPods(), { active: 0, backoff: 1, unschedulable: 0, gated: 0 });
    clock.advance(999);
    q.flushBackoffQCompleted();
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
    clock.advance(1);
    q.flushBackoffQCompleted();
    assert.equal(q.queueOf('uid-a'), 'activeQ');
    const again = await q.pop();
    assert.equal(again?.attempts, 2);
    q.addUnschedulableIfNotPresent(again!, q.schedulingCycle());
    clock.advance(1999);
    q.flushBackoffQCompleted();
    assert.equal(q.queueOf('uid-a'), 'backoffQ', 'second attempt: 2 s');
    clock.advance(1);
    q.flushBackoffQCompleted();
    assert.equal(q.queueOf('uid-a'), 'activeQ');
  });

  it('orders backoffQ by expiry', async () => {
    const { q, clock } = setup();
    q.add(makePod('a'));
    const a = await q.pop();
    a!.attempts = 3; // 4 s
    q.addUnschedulableIfNotPresent(a!, 0);
    q.add(makePod('b'));
    await failCycle(q); // 1 s
    clock.advance(1000);
    q.flushBackoffQCompleted();
    assert.equal(q.queueOf('uid-b'), 'activeQ');
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
  });

  it('run() flushes backoffQ on its timer, so a waiting pop gets the pod', async () => {
    const { q } = setup({}, { now: Date.now, podInitialBackoffMs: 1, podMaxBackoffMs: 1, backoffFlushIntervalMs: 5 });
    q.run();
    const keepAlive = setInterval(() => undefined, 60_000); // the queue's timers are unref()'d
    q.add(makePod('a'));
    await failCycle(q);
    assert.equal(await popName(q), 'a');
    q.close();
    clearInterval(keepAlive);
  });

  it('flushes pods that stayed in the pool longer than podMaxInUnschedulablePodsDuration', async () => {
    const { q, clock } = setup({}, { podMaxInUnschedulablePodsDurationMs: 60_000 });
    q.add(makePod('a'));
    await failCycle(q, ['NodeAffinity']);
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    clock.advance(60_000);
    q.flushUnschedulablePodsLeftover();
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods', 'not longer yet');
    clock.advance(1);
    q.flushUnschedulablePodsLeftover();
    assert.equal(q.queueOf('uid-a'), 'activeQ', 'backoff long over');
  });

  it('run() flushes the pool on its timer too', async () => {
    const { q } = setup({}, { now: Date.now, podInitialBackoffMs: 1, podMaxBackoffMs: 1, podMaxInUnschedulablePodsDurationMs: 0, unschedulableFlushIntervalMs: 5, backoffFlushIntervalMs: 5 });
    q.run();
    q.run(); // idempotent
    const keepAlive = setInterval(() => undefined, 60_000); // the queue's timers are unref()'d
    q.add(makePod('a'));
    await failCycle(q, ['NodeAffinity']);
    assert.equal(await popName(q), 'a');
    q.close();
    clearInterval(keepAlive);
  });
});

describe('PriorityQueue gating (PreEnqueue)', () => {
  it('holds a gated pod until an update eliminates its gates', async () => {
    const { q } = setup();
    q.add(makePod('a', { gates: ['example.com/wait'] }));
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    assert.deepEqual(q.pendingPods(), { active: 0, backoff: 0, unschedulable: 0, gated: 1 });
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods', 'node events do not lift gates');
    q.flushUnschedulablePodsLeftover();
    q.update(makePod('a', { gates: ['example.com/wait'] }), makePod('a', { gates: ['example.com/wait'], labels: { x: 'y' } }));
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods', 'still gated');
    q.update(makePod('a', { gates: ['example.com/wait'] }), makePod('a'));
    assert.equal(q.queueOf('uid-a'), 'activeQ');
    assert.deepEqual(q.pendingPods(), { active: 1, backoff: 0, unschedulable: 0, gated: 0 });
    const info = await q.pop();
    assert.equal(info?.attempts, 1, 'gated time is no attempt');
  });

  it('a gated pod flushed by the timeout is gated again', async () => {
    const { q, clock } = setup();
    q.add(makePod('a', { gates: ['g'] }));
    clock.advance(400_000);
    q.flushUnschedulablePodsLeftover();
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    assert.equal(q.pendingPods().gated, 1);
  });
});

describe('PriorityQueue event-driven moves', () => {
  it('moves a rejected pod only on an event its rejecting plugin registered', async () => {
    const { q, clock } = setup({ events: { NodeResourcesFit: [{ event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeAllocatable } }] } });
    q.add(makePod('a'));
    await failCycle(q, ['NodeResourcesFit']);
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    assert.deepEqual(q.pendingPods(), { active: 0, backoff: 0, unschedulable: 1, gated: 0 });
    q.moveAllToActiveOrBackoffQueue(NODE_LABEL, {}, {});
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    assert.equal(q.queueOf('uid-a'), 'backoffQ', 'still backing off');
    q.add(makePod('b'));
    await failCycle(q, ['NodeResourcesFit']);
    clock.advance(1000);
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    assert.equal(q.queueOf('uid-b'), 'activeQ', 'backoff expired');
  });

  it('matches WildCard registrations', async () => {
    const { q } = setup({ events: { Any: [{ event: { resource: 'WildCard', actionType: ActionType.Delete } }] } });
    q.add(makePod('a'));
    await failCycle(q, ['Any']);
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    q.moveAllToActiveOrBackoffQueue({ resource: 'Pod', actionType: ActionType.Delete }, {}, undefined);
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
  });

  it('asks the hint: Skip leaves the pod, Queue and a throwing hint move it', async () => {
    const seen: Array<[string | undefined, unknown, unknown]> = [];
    let answer: QueueingHint | 'throw' = QueueingHint.Skip;
    const hinted: ClusterEventWithHint = {
      event: { resource: 'Node', actionType: ActionType.Add },
      hint: (pod, oldObject, newObject) => {
        seen.push([pod.metadata.name, oldObject, newObject]);
        if (answer === 'throw') throw new Error('boom');
        return answer;
      },
    };
    const { q } = setup({ events: { TaintToleration: [hinted] } });
    for (const name of ['a', 'b']) {
      q.add(makePod(name));
      await failCycle(q, ['TaintToleration']);
    }
    const node = { metadata: { name: 'n1' } };
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, node);
    assert.deepEqual(seen.map((s) => s[0]).sort(), ['a', 'b']);
    assert.deepEqual(seen[0]?.slice(1), [undefined, node]);
    assert.equal(q.pendingPods().unschedulable, 2);
    answer = QueueingHint.Queue;
    q.delete(makePod('b'));
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, node);
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
    q.add(makePod('c'));
    await failCycle(q, ['TaintToleration']);
    answer = 'throw';
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, node);
    assert.equal(q.queueOf('uid-c'), 'backoffQ');
  });

  it('Queue from a Pending plugin skips the backoff', async () => {
    const { q } = setup({ events: { DynamicResources: [{ event: { resource: 'Node', actionType: ActionType.Add } }] } });
    q.add(makePod('a'));
    await failCycle(q, [], ['DynamicResources']);
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    assert.equal(q.queueOf('uid-a'), 'activeQ');
  });

  it('moves pods with no rejecting plugin on any event (a wildcard event moves every pod)', async () => {
    const { q } = setup({ events: { NodeAffinity: [{ event: { resource: 'Node', actionType: ActionType.Add } }] } });
    q.add(makePod('err'));
    const info = await q.pop();
    q.addUnschedulableIfNotPresent(info!, 1);
    q.done('uid-err');
    assert.equal(q.queueOf('uid-err'), 'backoffQ', 'an Error goes to backoff at once');
    q.add(makePod('a'));
    await failCycle(q, ['NodeAffinity']);
    q.moveAllToActiveOrBackoffQueue({ resource: 'WildCard', actionType: ActionType.Add, label: 'ForceActivate' }, undefined, undefined);
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
  });

  it('asks each profile its registrations once', async () => {
    const { q, framework } = setup({ events: { NodeAffinity: [{ event: { resource: 'Node', actionType: ActionType.Add } }] } });
    for (const name of ['a', 'b', 'c']) {
      q.add(makePod(name));
      await failCycle(q, ['NodeAffinity']);
    }
    q.moveAllToActiveOrBackoffQueue(NODE_LABEL, {}, {});
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    assert.equal(framework.eventsToRegisterCalls, 1);
  });
});

describe('PriorityQueue in-flight events', () => {
  const fw: FakeFrameworkOptions = { events: { NodeResourcesFit: [{ event: { resource: 'Node', actionType: ActionType.Add } }] } };

  it('an event during the cycle sends the failed pod to backoff instead of the pool', async () => {
    const { q } = setup(fw);
    q.add(makePod('a'));
    const info = await q.pop();
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    info!.unschedulablePlugins.add('NodeResourcesFit');
    q.addUnschedulableIfNotPresent(info!, q.schedulingCycle());
    q.done('uid-a');
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
  });

  it('an unrelated event during the cycle, or one before it, does not', async () => {
    const { q } = setup(fw);
    q.add(makePod('other'));
    const other = await q.pop(); // keeps events recorded
    q.add(makePod('a'));
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {}); // before a's pop
    const info = await q.pop();
    q.moveAllToActiveOrBackoffQueue(NODE_LABEL, {}, {});
    info!.unschedulablePlugins.add('NodeResourcesFit');
    q.addUnschedulableIfNotPresent(info!, q.schedulingCycle());
    q.done('uid-a');
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods');
    q.done(other!.podInfo.uid);
  });

  it('the pod’s own update during its cycle counts (through the hint of its plugin)', async () => {
    const { q } = setup({ events: { NodeAffinity: [{ event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodLabel }, hint: (pod, _old, newObj) => ((newObj as Pod).metadata.uid === pod.metadata.uid ? QueueingHint.Queue : QueueingHint.Skip) }] } });
    q.add(makePod('a'));
    const info = await q.pop();
    q.update(makePod('a'), makePod('a', { labels: { x: 'y' } }));
    assert.equal(q.queueOf('uid-a'), 'inFlight', 'an update does not re-add an in-flight pod');
    info!.unschedulablePlugins.add('NodeAffinity');
    q.addUnschedulableIfNotPresent(info!, 1);
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
  });

  it('forgets events once no pod is in flight', async () => {
    const { q } = setup(fw);
    q.add(makePod('a'));
    q.add(makePod('b'));
    const a = await q.pop();
    q.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, {});
    const b = await q.pop();
    q.done('uid-a');
    q.done('uid-a'); // twice is harmless
    b!.unschedulablePlugins.add('NodeResourcesFit');
    q.addUnschedulableIfNotPresent(b!, 2);
    assert.equal(q.queueOf('uid-b'), 'unschedulablePods', 'the event came before b was popped');
    q.done('uid-b');
    q.add(makePod('c'));
    const c = await q.pop();
    c!.unschedulablePlugins.add('NodeResourcesFit');
    q.addUnschedulableIfNotPresent(c!, 3);
    assert.equal(q.queueOf('uid-c'), 'unschedulablePods');
    void a;
  });

  it('does not re-queue a pod deleted during its cycle, nor one queued again meanwhile', async () => {
    const { q } = setup(fw);
    q.add(makePod('a'));
    const info = await q.pop();
    q.delete(makePod('a'));
    q.addUnschedulableIfNotPresent(info!, 1);
    assert.equal(q.queueOf('uid-a'), 'inFlight');
    q.done('uid-a');
    assert.equal(q.queueOf('uid-a'), undefined);
    q.add(makePod('b'));
    const b = await q.pop();
    q.add(makePod('b'));
    q.addUnschedulableIfNotPresent(b!, 2);
    assert.equal(q.queueOf('uid-b'), 'activeQ');
    assert.equal(q.pendingPods().active, 1);
  });
});

describe('PriorityQueue pod updates and deletes', () => {
  it('updates a queued pod in place, reordering activeQ', async () => {
    const { q, clock } = setup();
    q.add(makePod('a', { priority: 1 }));
    clock.advance(1);
    q.add(makePod('b', { priority: 2 }));
    q.update(makePod('a', { priority: 1 }), makePod('a', { priority: 3 }));
    assert.equal(q.pendingPods().active, 2);
    const first = await q.pop();
    assert.equal(first?.podInfo.pod.spec?.priority, 3);
  });

  it('updates a pod in backoffQ in place', async () => {
    const { q } = setup();
    q.add(makePod('a'));
    await failCycle(q);
    q.update(makePod('a'), makePod('a', { labels: { v: '2' } }));
    assert.equal(q.queueOf('uid-a'), 'backoffQ');
    assert.equal(q.pendingPods().backoff, 1);
  });

  it('moves an unschedulable pod whose update may help, per the registered UnscheduledPod events', async () => {
    const { q, clock } = setup({ events: { TaintToleration: [{ event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodTolerations } }] } });
    q.add(makePod('a'));
    await failCycle(q, ['TaintToleration']);
    q.update(makePod('a'), makePod('a', { labels: { x: 'y' } }));
    assert.equal(q.queueOf('uid-a'), 'unschedulablePods', 'a label change does not help');
    assert.equal(q.pendingPods().unschedulable, 1);
    clock.advance(5000);
    const withToleration = makePod('a');
    withToleration.spec!.tolerations = [{ key: 'k', operator: 'Exists' }];
    q.update(makePod('a'), withToleration);
    assert.equal(q.queueOf('uid-a'), 'activeQ');
    assert.deepEqual((await q.pop())?.podInfo.pod.spec?.tolerations, [{ key: 'k', operator: 'Exists' }]);
  });

  it('adds an updated pod it did not hold', () => {
    const { q } = setup();
    q.update(makePod('a'), makePod('a'));
    assert.equal(q.queueOf('uid-a'), 'activeQ');
  });

  it('deletes from every queue', async () => {
    const { q } = setup({ events: {} });
    q.add(makePod('active'));
    q.add(makePod('x'));
    await failCycle(q, ['P']);
    q.add(makePod('y'));
    q.delete(makePod('active'));
    q.delete(makePod('y'));
    q.delete(makePod('x'));
    assert.deepEqual(q.pendingPods(), { active: 0, backoff: 0, unschedulable: 0, gated: 0 });
  });
});

describe('PriorityQueue assigned pods', () => {
  const fw: FakeFrameworkOptions = {
    events: {
      InterPodAffinity: [{ event: { resource: 'Pod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete } }],
      PodTopologySpread: [{ event: { resource: 'Pod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete } }],
      NodeResourcesFit: [{ event: { resource: 'Pod', actionType: ActionType.Delete | ActionType.UpdatePodScaleDown } }],
    },
  };

  it('moves the pods whose required affinity terms select an added pod', async () => {
    const { q } = setup(fw);
    q.add(makePod('wants-db', { requiredAffinityTo: { app: 'db' } }));
    await failCycle(q, ['InterPodAffinity']);
    q.add(makePod('wants-web', { requiredAffinityTo: { app: 'web' } }));
    await failCycle(q, ['InterPodAffinity']);
    q.assignedPodAdded(makePod('db-0', { labels: { app: 'db' } }));
    assert.equal(q.queueOf('uid-wants-db'), 'backoffQ');
    assert.equal(q.queueOf('uid-wants-web'), 'unschedulablePods');
  });

  it('reads namespace labels for terms with a namespaceSelector', async () => {
    const { q } = setup(fw, { namespaceLabels: (ns) => (ns === 'prod' ? { env: 'prod' } : undefined) });
    const p = makePod('wants-db', { requiredAffinityTo: { app: 'db' } });
    p.spec!.affinity!.podAffinity!.requiredDuringSchedulingIgnoredDuringExecution![0]!.namespaceSelector = { matchLabels: { env: 'prod' } };
    q.add(p);
    await failCycle(q, ['InterPodAffinity']);
    q.assignedPodAdded(makePod('db-test', { labels: { app: 'db' }, namespace: 'test' }));
    assert.equal(q.queueOf('uid-wants-db'), 'unschedulablePods');
    q.assignedPodAdded(makePod('db-prod', { labels: { app: 'db' }, namespace: 'prod' }));
    assert.equal(q.queueOf('uid-wants-db'), 'backoffQ');
  });

  it('moves pods rejected by PodTopologySpread in the same namespace only', async () => {
    const { q } = setup(fw);
    q.add(makePod('spread'));
    await failCycle(q, ['PodTopologySpread']);
    q.assignedPodAdded(makePod('elsewhere', { namespace: 'other' }));
    assert.equal(q.queueOf('uid-spread'), 'unschedulablePods');
    q.assignedPodUpdated(makePod('same'), makePod('same', { labels: { a: 'b' } }));
    assert.equal(q.queueOf('uid-spread'), 'backoffQ');
  });

  it('a scale-down of an assigned pod moves pods NodeResourcesFit rejected', async () => {
    const { q } = setup(fw);
    q.add(makePod('big'));
    await failCycle(q, ['NodeResourcesFit']);
    const before = makePod('running', { labels: { a: 'b' } });
    q.assignedPodUpdated(before, makePod('running', { labels: { a: 'c' } }));
    assert.equal(q.queueOf('uid-big'), 'unschedulablePods');
    before.spec!.containers[0]!.resources = { requests: { cpu: '2' } };
    const after = makePod('running', { labels: { a: 'b' } });
    after.spec!.containers[0]!.resources = { requests: { cpu: '1' } };
    q.assignedPodUpdated(before, after);
    assert.equal(q.queueOf('uid-big'), 'backoffQ');
  });
});

describe('PriorityQueue nominator', () => {
  it('nominates added pods that carry status.nominatedNodeName and forgets deleted ones', () => {
    const { q } = setup();
    q.add(makePod('a', { nominated: 'node-1' }));
    assert.deepEqual(q.nominatedPodsForNode('node-1').map((p) => p.pod.metadata.name), ['a']);
    q.update(makePod('a', { nominated: 'node-1' }), makePod('a', { nominated: 'node-1', labels: { x: 'y' } }));
    assert.deepEqual(q.nominatedPodsForNode('node-1')[0]?.pod.metadata.labels, { x: 'y' });
    q.delete(makePod('a'));
    assert.deepEqual(q.nominatedPodsForNode('node-1'), []);
  });

  it('keeps a nomination made by preemption across the failed cycle', async () => {
    const { q } = setup({ events: {} });
    q.add(makePod('a'));
    const info = await q.pop();
    info!.unschedulablePlugins.add('NodeResourcesFit');
    q.addUnschedulableIfNotPresent(info!, 1);
    q.addNominatedPod(info!.podInfo, 'node-2');
    q.done('uid-a');
    assert.deepEqual(q.nominatedPodsForNode('node-2').map((p) => p.pod.metadata.name), ['a']);
    q.updateNominatedPod(makePod('a'), info!.podInfo);
    assert.equal(q.nominatedPodsForNode('node-2').length, 1);
    q.deleteNominatedPodIfExists(makePod('a'));
    assert.equal(q.nominatedPodsForNode('node-2').length, 0);
  });

  it('skips pods the pod lister no longer knows', () => {
    const { q } = setup({}, { currentPod: () => undefined });
    q.add(makePod('a', { nominated: 'node-1' }));
    assert.deepEqual(q.nominatedPodsForNode('node-1'), []);
  });
});

void pending;
