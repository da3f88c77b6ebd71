import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PODS } from '../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../client/testing/fake-client.js';
import { serviceUnavailable } from '../machinery/status.js';
import type { CycleState } from './framework/cycle-state.js';
import type { NodePluginScores, PluginFactory, Registry } from './framework/interfaces.js';
import type { NodeInfo } from './framework/node-info.js';
import { newFramework } from './framework/runtime.js';
import { Code, Status, unresolvable, unschedulable } from './framework/status.js';
import type { Pod } from './framework/types.js';
import { IN_TREE_PLUGINS } from './plugins/registry.js';
import { numFeasibleNodesToFind, ScheduleOne, selectHost } from './schedule-one.js';
import { FakeCache, FakeQueue, queuedPodInfo } from './testing/fake-queue-cache.js';
import { fakePlugin, FakeSnapshot, handleParts, makeNode, makePod, nodeInfoOf, RecordingRecorder, silentLogger } from './testing/fakes.js';

const TAINT = 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }';

interface Setup {
  readonly client: FakeClient;
  readonly queue: FakeQueue;
  readonly cache: FakeCache;
  readonly recorder: RecordingRecorder;
  readonly cycle: ScheduleOne;
  readonly pods: Map<string, Pod>;
}

function setup(options: { plugins: Registry; nodes: NodeInfo[]; pods: Pod[]; chunk?: number; percentage?: number }): Setup {
  const client = newFakeClient();
  const seeded = client.seed<Pod>(PODS, options.pods);
  const pods = new Map(seeded.map((p) => [p.metadata.name ?? '', p]));
  const snapshot = new FakeSnapshot(options.nodes);
  const cache = new FakeCache(snapshot);
  const queue = new FakeQueue();
  const recorder = new RecordingRecorder();
  const registry: Registry = { ...IN_TREE_PLUGINS, ...options.plugins };
  const enabled = ['PrioritySort', 'DefaultBinder', ...Object.keys(options.plugins)].map((name) => ({ name }));
  const fwk = newFramework(registry, { schedulerName: 'default-scheduler', plugins: { multiPoint: { enabled } } }, handleParts({ client, snapshot, nominator: queue, events: recorder }));
  const cycle = new ScheduleOne({
    queue,
    cache,
    snapshot,
    frameworks: new Map([['default-scheduler', fwk]]),
    client,
    recorderFor: () => recorder,
    getPod: (_namespace, name) => pods.get(name),
    logger: silentLogger,
    percentageOfNodesToScore: options.percentage ?? 0,
    ...(options.chunk === undefined ? {} : { filterChunkSize: options.chunk }),
    random: () => 0.99,
    statusWriteAttempts: 2,
  });
  return { client, queue, cache, recorder, cycle, pods };
}

const filter = (name: string, verdict: (node: string) => Status | undefined): PluginFactory => () => fakePlugin(name, { filter: (_s: CycleState, _p: Pod, n: NodeInfo) => verdict(n.name) });
const threeNodes = (): NodeInfo[] => ['cp', 'w1', 'w2'].map((n) => nodeInfoOf(makeNode(n)));

async function statusOf(client: FakeClient, name: string): Promise<Pod> {
  return client.resource<Pod>(PODS).get(name, { namespace: 'default' });
}

describe('scheduling cycle', () => {
  it('binds the pod to the best node, assumes it first, and records Scheduled', async () => {
    const s = setup({
      plugins: { Pick: () => fakePlugin('Pick', { score: (_s: CycleState, _p: Pod, n: NodeInfo) => (n.name === 'w1' ? 90 : 10) }) },
      nodes: threeNodes(),
      pods: [makePod('web')],
    });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('web')!));
    await s.cycle.drain();
    const [binding] = s.client.actionsOf('create', 'pods/binding');
    assert.deepEqual((binding?.body as { target: unknown }).target, { kind: 'Node', name: 'w1' });
    assert.deepEqual(s.cache.calls, ['assume web w1', 'finishBinding web']);
    assert.deepEqual(s.recorder.events.map((e) => [e.type, e.reason, e.message]), [['Normal', 'Scheduled', 'Successfully assigned default/web to w1']]);
    assert.deepEqual(s.queue.doneUids, [s.pods.get('web')!.metadata.uid]);
    assert.equal((await statusOf(s.client, 'web')).spec?.nodeName, 'w1');
  });

  it('leaves an unschedulable pod Pending with the upstream message, event and condition, and re-queues it with the rejecting plugins', async () => {
    const s = setup({
      plugins: {
        TaintToleration: filter('TaintToleration', (n) => (n === 'cp' ? unresolvable(TAINT) : undefined)),
        NodeResourcesFit: filter('NodeResourcesFit', () => unschedulable('Insufficient cpu')),
        DefaultPreemption: () => fakePlugin('DefaultPreemption', { postFilter: async () => ({ status: unschedulable('0/3 nodes are available: 3 No preemption victims found for incoming pod.') }) }),
      },
      nodes: threeNodes(),
      pods: [makePod('big')],
    });
    const pod = s.pods.get('big')!;
    await s.cycle.scheduleOne(queuedPodInfo(pod));
    const message = '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    assert.deepEqual(s.recorder.events.map((e) => [e.type, e.reason, e.message]), [['Warning', 'FailedScheduling', message]]);
    const stored = await statusOf(s.client, 'big');
    const condition = stored.status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'Unschedulable');
    assert.equal(condition?.message, message);
    assert.equal(stored.status?.phase, 'Pending', 'the patch keeps the other status fields');
    assert.equal(s.client.actionsOf('patch', 'pods/status')[0]?.patchType, 'strategic');
    assert.deepEqual([...s.queue.requeued[0]!.unschedulablePlugins].sort(), ['NodeResourcesFit', 'TaintToleration']);
    assert.deepEqual(s.cache.calls, [], 'nothing assumed');
    assert.equal(s.client.actionsOf('create', 'pods/binding').length, 0);
  });

  it('does not rewrite an unchanged condition', async () => {
    const s = setup({ plugins: { No: filter('No', () => unschedulable('nope')) }, nodes: threeNodes(), pods: [makePod('p')] });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    s.pods.set('p', await statusOf(s.client, 'p'));
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    assert.equal(s.client.actionsOf('patch', 'pods/status').length, 1);
    assert.equal(s.recorder.events.length, 2, 'but records the event each time');
  });

  it('runs PostFilter only for a fit error, and writes the nominated node it returns', async () => {
    let postFilterRuns = 0;
    const s = setup({
      plugins: {
        No: filter('No', (n) => (n === 'w2' ? unschedulable('Insufficient memory') : unschedulable('Insufficient cpu'))),
        Preempt: () => fakePlugin('Preempt', { postFilter: async () => (postFilterRuns++, { result: { nominatingInfo: { nominatedNodeName: 'w2', mode: 'Override' as const } } }) }),
      },
      nodes: threeNodes(),
      pods: [makePod('vip', { priority: 1000 })],
    });
    const pod = s.pods.get('vip')!;
    await s.cycle.scheduleOne(queuedPodInfo(pod));
    assert.equal(postFilterRuns, 1);
    const stored = await statusOf(s.client, 'vip');
    assert.equal(stored.status?.nominatedNodeName, 'w2');
    assert.equal(stored.status?.conditions?.[0]?.message, '0/3 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.');
    assert.deepEqual(s.queue.nominatedPodsForNode('w2').map((p) => p.pod.metadata.name), ['vip']);
  });

  it('does not run PostFilter when there are no nodes, and says so as upstream', async () => {
    let postFilterRuns = 0;
    const s = setup({ plugins: { Preempt: () => fakePlugin('Preempt', { postFilter: async () => (postFilterRuns++, {}) }) }, nodes: [], pods: [makePod('p')] });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    assert.equal(postFilterRuns, 0);
    assert.equal(s.recorder.events[0]?.message, 'no nodes available to schedule pods');
    assert.equal((await statusOf(s.client, 'p')).status?.conditions?.[0]?.reason, 'Unschedulable');
  });

  it('reports a plugin error with reason SchedulerError and re-queues for backoff (no rejecting plugins)', async () => {
    const s = setup({ plugins: { Broken: () => fakePlugin('Broken', { preFilter: () => ({ status: new Status(Code.Error, ['disk on fire']) }) }) }, nodes: threeNodes(), pods: [makePod('p')] });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    const condition = (await statusOf(s.client, 'p')).status?.conditions?.[0];
    assert.equal(condition?.reason, 'SchedulerError');
    assert.equal(condition?.message, 'running PreFilter plugin "Broken": disk on fire');
    assert.equal(s.queue.requeued[0]?.unschedulablePlugins.size, 0);
  });

  it('tries the nominated node first', async () => {
    const visited: string[] = [];
    const s = setup({ plugins: { Seen: filter('Seen', (n) => (visited.push(n), undefined)) }, nodes: threeNodes(), pods: [makePod('p', { nominatedNodeName: 'w2' })] });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    await s.cycle.drain();
    assert.deepEqual(visited, ['w2']);
    assert.equal((await statusOf(s.client, 'p')).spec?.nodeName, 'w2');
  });

  it('falls back to every node when the nominated node no longer fits', async () => {
    const visited: string[] = [];
    const s = setup({ plugins: { Seen: filter('Seen', (n) => (visited.push(n), n === 'w2' ? unschedulable('Insufficient cpu') : undefined)) }, nodes: threeNodes(), pods: [makePod('p', { nominatedNodeName: 'w2' })] });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    await s.cycle.drain();
    assert.deepEqual(visited, ['w2', 'cp', 'w1', 'w2']);
    assert.notEqual((await statusOf(s.client, 'p')).spec?.nodeName, 'w2');
  });

  it('skips a pod being deleted and a pod already assumed', async () => {
    const deleting = makePod('gone');
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const s = setup({ plugins: {}, nodes: threeNodes(), pods: [makePod('p')] });
    await s.cycle.scheduleOne(queuedPodInfo(deleting));
    assert.deepEqual(s.recorder.events.map((e) => e.message), ['skip schedule deleting pod: default/gone']);
    const pod = s.pods.get('p')!;
    s.cache.assumePod(pod);
    s.cache.calls.length = 0;
    await s.cycle.scheduleOne(queuedPodInfo(pod));
    assert.deepEqual(s.cache.calls, []);
    assert.equal(s.client.actionsOf('create').length, 0);
    assert.equal(s.queue.doneUids.length, 2);
  });
});

describe('chunked filtering', () => {
  const names = Array.from({ length: 250 }, (_, i) => `n${String(i).padStart(3, '0')}`);

  it('visits each node at most once, stops at numFeasibleNodesToFind, and starts the next cycle where this one stopped', async () => {
    const visits: string[] = [];
    let yielded = false;
    let sawYield = false;
    const s = setup({
      plugins: {
        Seen: filter('Seen', (n) => {
          visits.push(n);
          if (yielded) sawYield = true;
          return undefined;
        }),
      },
      nodes: names.map((n) => nodeInfoOf(makeNode(n))),
      pods: [makePod('a'), makePod('b')],
      chunk: 7,
    });
    setImmediate(() => (yielded = true));
    assert.equal(numFeasibleNodesToFind(0, 250), 120);
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('a')!));
    assert.equal(visits.length, 120);
    assert.equal(new Set(visits).size, 120);
    assert.deepEqual(visits.slice(0, 2), ['n000', 'n001']);
    assert.ok(sawYield, 'the event loop ran between chunks');
    assert.equal(s.cycle.nextStartNodeIndex, 120);
    visits.length = 0;
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('b')!));
    assert.equal(visits[0], 'n120');
    assert.equal(visits.length, 120);
    assert.equal(s.cycle.nextStartNodeIndex, 240);
    await s.cycle.drain();
  });

  it('visits every node exactly once when none fits', async () => {
    const visits: string[] = [];
    const s = setup({ plugins: { No: filter('No', (n) => (visits.push(n), unschedulable('nope'))) }, nodes: names.map((n) => nodeInfoOf(makeNode(n))), pods: [makePod('p')], chunk: 16 });
    s.cycle.nextStartNodeIndex = 100;
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    assert.equal(visits.length, 250);
    assert.equal(new Set(visits).size, 250);
    assert.equal(visits[0], 'n100');
    assert.equal(s.recorder.events[0]?.message, '0/250 nodes are available: 250 nope.');
    assert.equal(s.cycle.nextStartNodeIndex, 100);
  });

  it('honours a fixed percentageOfNodesToScore', async () => {
    const visits: string[] = [];
    const s = setup({ plugins: { Seen: filter('Seen', (n) => (visits.push(n), undefined)) }, nodes: names.map((n) => nodeInfoOf(makeNode(n))), pods: [makePod('p')], percentage: 100 });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    await s.cycle.drain();
    assert.equal(visits.length, 250);
  });
});

describe('binding cycle failures', () => {
  it('unreserves, forgets the assumed pod, frees its room and re-queues the pod when binding fails', async () => {
    const unreserved: string[] = [];
    const s = setup({
      plugins: { Keep: () => fakePlugin('Keep', { reserve: () => undefined, unreserve: (_s: CycleState, p: Pod, node: string) => void unreserved.push(`${p.metadata.name}@${node}`) }) },
      nodes: [nodeInfoOf(makeNode('only'))],
      pods: [makePod('p')],
    });
    s.client.injectError('create', 'pods/binding', serviceUnavailable('etcd is down'));
    const pod = s.pods.get('p')!;
    await s.cycle.scheduleOne(queuedPodInfo(pod));
    await s.cycle.drain();
    assert.deepEqual(s.cache.calls, ['assume p only', 'finishBinding p', 'forget p']);
    assert.deepEqual(unreserved, ['p@only']);
    assert.deepEqual(s.queue.moves.map((m) => m.label), ['AssignedPodDelete']);
    assert.equal(s.queue.requeued.length, 1);
    assert.equal(s.queue.requeued[0]?.podInfo.pod.spec?.nodeName, undefined, 'the pod goes back as it was, not as assumed');
    const event = s.recorder.events.find((e) => e.reason === 'FailedScheduling');
    assert.match(event?.message ?? '', /running Bind plugin "DefaultBinder": .*etcd is down/);
    assert.equal((await statusOf(s.client, 'p')).status?.conditions?.[0]?.reason, 'SchedulerError');
  });

  it('does not re-queue a pod that the informer already shows bound', async () => {
    const s = setup({ plugins: {}, nodes: [nodeInfoOf(makeNode('only'))], pods: [makePod('p')] });
    s.client.injectError('create', 'pods/binding', serviceUnavailable('timeout'));
    const pod = s.pods.get('p')!;
    s.pods.set('p', { ...pod, spec: { ...pod.spec!, nodeName: 'only' } });
    await s.cycle.scheduleOne(queuedPodInfo(pod));
    await s.cycle.drain();
    assert.equal(s.queue.requeued.length, 0);
  });

  it('rejects at Permit: unreserve, forget, and the pod is unschedulable with the permit plugin named', async () => {
    const s = setup({ plugins: { Gate: () => fakePlugin('Gate', { permit: () => ({ status: unschedulable('not yet') }) }) }, nodes: [nodeInfoOf(makeNode('only'))], pods: [makePod('p')] });
    await s.cycle.scheduleOne(queuedPodInfo(s.pods.get('p')!));
    assert.deepEqual(s.cache.calls, ['assume p only', 'forget p']);
    assert.equal(s.recorder.events[0]?.message, '0/1 nodes are available: 1 not yet.');
    assert.deepEqual([...s.queue.requeued[0]!.unschedulablePlugins], ['Gate']);
  });
});

describe('selectHost', () => {
  const score = (name: string, totalScore: number): NodePluginScores => ({ name, scores: [], totalScore });

  it('picks the highest total', () => {
    assert.equal(selectHost([score('a', 1), score('b', 9), score('c', 3)]), 'b');
  });

  it('picks among ties by reservoir sampling', () => {
    const seen = new Set<string>();
    const values = [0.1, 0.9, 0.4, 0.2, 0.8, 0.6];
    for (let i = 0; i < values.length; i++) {
      let k = i;
      seen.add(selectHost([score('a', 5), score('b', 5), score('c', 5), score('d', 1)], () => values[k++ % values.length]!));
    }
    assert.ok(seen.size > 1);
    assert.ok(!seen.has('d'));
    assert.throws(() => selectHost([]), /empty priorityList/);
  });
});

describe('numFeasibleNodesToFind', () => {
  it('follows upstream: all below 100 nodes, adaptive percentage floored at 5%, at least 100', () => {
    assert.equal(numFeasibleNodesToFind(0, 99), 99);
    assert.equal(numFeasibleNodesToFind(0, 1000), 420);
    assert.equal(numFeasibleNodesToFind(0, 5000), 500);
    assert.equal(numFeasibleNodesToFind(0, 10000), 500);
    assert.equal(numFeasibleNodesToFind(10, 500), 100);
    assert.equal(numFeasibleNodesToFind(30, 5000), 1500);
    assert.equal(numFeasibleNodesToFind(100, 5000), 5000);
  });
});
