import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PODS, POD_DISRUPTION_BUDGETS } from '../../../client/rest/resources.js';
import { notFound, serviceUnavailable } from '../../../machinery/status.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { WaitingPod } from '../../framework/interfaces.js';
import { NodeToStatus } from '../../framework/node-to-status.js';
import type { PodDisruptionBudget } from '../../framework/preemption/evaluator.js';
import { Code, Status, unresolvable } from '../../framework/status.js';
import { PodInfo, type Pod } from '../../framework/types.js';
import type { DefaultPreemptionArgs } from './args.js';
import { DefaultPreemption, NAME, newDefaultPreemption } from './default-preemption.js';
import { makeNode, makeNodeInfo, makePod, newFakeHandle, PRE_FILTER_CALLS_KEY, PreFilterCalls, type FakeHandle } from './testing/fake-handle.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const DEFAULT_ARGS: DefaultPreemptionArgs = { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 };

interface NodeSetup {
  readonly name: string;
  readonly cpu: string;
  readonly pods?: Pod[];
}

function setup(nodes: NodeSetup[], options: { args?: DefaultPreemptionArgs; offset?: number } = {}) {
  const infos = nodes.map((n) => makeNodeInfo(makeNode(n.name, { cpu: n.cpu }), n.pods ?? []));
  const handle = newFakeHandle(infos);
  handle.client.seed(
    PODS,
    nodes.flatMap((n) => n.pods ?? []),
  );
  const plugin = new DefaultPreemption(options.args ?? DEFAULT_ARGS, handle, { randomInt: () => options.offset ?? 0, now: () => NOW });
  return { handle, plugin, infos };
}

/** Every named node rejected as Unschedulable (Insufficient cpu), the others absent. */
function insufficientCpu(...names: string[]): NodeToStatus {
  const statuses = new NodeToStatus();
  for (const name of names) statuses.set(name, new Status(Code.Unschedulable, ['Insufficient cpu']));
  return statuses;
}

function addPDB(handle: FakeHandle, name: string, matchLabels: Record<string, string>, disruptionsAllowed: number): void {
  const pdb: PodDisruptionBudget = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { selector: { matchLabels } },
    status: { disruptionsAllowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
  };
  handle.informers.indexerFor<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS).upsert(pdb);
}

const preemptor = (options: Parameters<typeof makePod>[1] = {}): Pod => makePod('preemptor', { priority: 100, cpu: '2', ...options });
const deletedNames = (handle: FakeHandle): string[] => handle.client.actionsOf('delete', 'pods').map((a) => a.name);

describe('DefaultPreemption', () => {
  it('evicts the lowest-priority victims, nominates the node, marks, deletes and records an event for each victim', async () => {
    const { handle, plugin } = setup([
      { name: 'node-a', cpu: '4', pods: [makePod('a-mid', { priority: 50, cpu: '2', nodeName: 'node-a' }), makePod('a-low', { priority: 1, cpu: '2', nodeName: 'node-a' })] },
      { name: 'node-b', cpu: '4', pods: [makePod('b-mid', { priority: 40, cpu: '2', nodeName: 'node-b' }), makePod('b-high', { priority: 60, cpu: '2', nodeName: 'node-b' })] },
    ]);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a', 'node-b'));

    assert.equal(outcome.status, undefined);
    assert.deepEqual(outcome.result, { nominatingInfo: { nominatedNodeName: 'node-a', mode: 'Override' } });
    assert.deepEqual(deletedNames(handle), ['a-low']);

    const [patch] = handle.client.actionsOf('patch', 'pods/status');
    assert.equal(patch?.name, 'a-low');
    assert.equal(patch?.patchType, 'strategic');
    assert.deepEqual(patch?.body, {
      status: {
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'PreemptionByScheduler',
            message: 'default-scheduler: preempting to accommodate a higher priority pod',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    const victim = await handle.client.resource<Pod>(PODS).get('a-low', { namespace: 'default' });
    assert.equal(victim.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'PreemptionByScheduler');
    assert.notEqual(victim.metadata.deletionTimestamp, undefined);

    assert.deepEqual(
      handle.events.events.map((e) => [e.object.metadata.name, e.type, e.reason, e.message]),
      [['a-low', 'Normal', 'Preempted', 'Preempted by pod uid-preemptor on node node-a']],
    );
  });

  it('does not touch the snapshot nor the cycle state it is given', async () => {
    const { plugin, infos } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('low', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
    const state = new CycleState();
    state.write(PRE_FILTER_CALLS_KEY, new PreFilterCalls());
    const generation = infos[0]!.generation;
    const outcome = await plugin.postFilter(state, preemptor(), insufficientCpu('node-a'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
    assert.deepEqual(state.read<PreFilterCalls>(PRE_FILTER_CALLS_KEY), new PreFilterCalls(0, 0));
    assert.equal(infos[0]!.pods.length, 1);
    assert.equal(infos[0]!.generation, generation);
  });

  it('prefers a node where no PodDisruptionBudget is violated, even with more important victims', async () => {
    const { handle, plugin } = setup([
      { name: 'node-a', cpu: '2', pods: [makePod('a-web', { priority: 1, cpu: '2', nodeName: 'node-a', labels: { app: 'web' } })] },
      { name: 'node-b', cpu: '2', pods: [makePod('b-batch', { priority: 50, cpu: '2', nodeName: 'node-b', labels: { app: 'batch' } })] },
    ]);
    addPDB(handle, 'web', { app: 'web' }, 0);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a', 'node-b'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-b');
    assert.deepEqual(deletedNames(handle), ['b-batch']);
  });

  it('violates a budget when nothing else helps', async () => {
    const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('a-web', { priority: 1, cpu: '2', nodeName: 'node-a', labels: { app: 'web' } })] }]);
    addPDB(handle, 'web', { app: 'web' }, 0);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
    assert.deepEqual(deletedNames(handle), ['a-web']);
  });

  it('does not preempt for a pod with preemptionPolicy Never', async () => {
    const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('low', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
    const outcome = await plugin.postFilter(new CycleState(), preemptor({ preemptionPolicy: 'Never' }), insufficientCpu('node-a'));
    assert.equal(outcome.result, undefined);
    assert.equal(outcome.status?.code, Code.Unschedulable);
    assert.equal(outcome.status?.message(), 'not eligible due to preemptionPolicy=Never.');
    assert.deepEqual(handle.client.actions, []);
  });

  it('waits while victims preempted on the nominated node are terminating, unless that node is now unresolvable', async () => {
    const terminating = makePod('victim', {
      priority: 1,
      cpu: '1',
      nodeName: 'node-a',
      deletionTimestamp: '2026-01-01T00:00:30Z',
      conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }],
    });
    const { handle, plugin } = setup([
      { name: 'node-a', cpu: '2', pods: [terminating, makePod('other', { priority: 1, cpu: '1', nodeName: 'node-a' })] },
      { name: 'node-b', cpu: '2', pods: [makePod('b-low', { priority: 1, cpu: '2', nodeName: 'node-b' })] },
    ]);
    const pod = preemptor({ nominatedNodeName: 'node-a' });
    const waiting = await plugin.postFilter(new CycleState(), pod, insufficientCpu('node-a', 'node-b'));
    assert.equal(waiting.result, undefined);
    assert.equal(waiting.status?.code, Code.Unschedulable);
    assert.equal(waiting.status?.message(), 'not eligible due to a terminating pod on the nominated node.');
    assert.deepEqual(handle.client.actions, []);

    const statuses = insufficientCpu('node-b');
    statuses.set('node-a', unresolvable("node(s) didn't match Pod's node affinity/selector"));
    const moved = await plugin.postFilter(new CycleState(), pod, statuses);
    assert.equal(moved.result?.nominatingInfo?.nominatedNodeName, 'node-b');
  });

  it('skips the API calls for a victim already being deleted', async () => {
    const deleting = makePod('deleting', { priority: 1, cpu: '1', nodeName: 'node-a', deletionTimestamp: '2026-01-01T00:00:30Z' });
    const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [deleting, makePod('low', { priority: 2, cpu: '1', nodeName: 'node-a' })] }]);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
    assert.deepEqual(deletedNames(handle), ['low']);
    assert.deepEqual(
      handle.events.events.map((e) => e.object.metadata.name),
      ['low'],
    );
  });

  it('rejects a victim that waits at Permit instead of deleting it', async () => {
    const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('permit', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
    const rejections: Array<[string, string]> = [];
    const waitingPod: WaitingPod = {
      pod: makePod('permit'),
      pendingPlugins: () => ['Gate'],
      allow: () => undefined,
      reject: (plugin, message) => void rejections.push([plugin, message]),
    };
    handle.waitingPods.set('uid-permit', waitingPod);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
    assert.equal(outcome.status, undefined);
    assert.deepEqual(rejections, [[NAME, 'preempted']]);
    assert.deepEqual(handle.client.actions, []);
    assert.deepEqual(
      handle.events.events.map((e) => e.reason),
      ['Preempted'],
    );
  });

  it('clears the nomination of lower-priority pods nominated to the chosen node', async () => {
    const { handle, plugin } = setup([{ name: 'node-a', cpu: '4', pods: [makePod('low', { priority: 1, cpu: '4', nodeName: 'node-a' })] }]);
    const lower = makePod('lower-nominated', { priority: 50, cpu: '1', nominatedNodeName: 'node-a' });
    const higher = makePod('higher-nominated', { priority: 200, cpu: '1', nominatedNodeName: 'node-a' });
    handle.client.seed(PODS, [lower, higher]);
    handle.nominator.addNominatedPod(new PodInfo(lower));
    handle.nominator.addNominatedPod(new PodInfo(higher));

    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
    const cleared = handle.client.actionsOf('patch', 'pods/status').filter((a) => a.name !== 'low');
    assert.deepEqual(
      cleared.map((a) => [a.name, a.body]),
      [['lower-nominated', { status: { nominatedNodeName: null } }]],
    );
    const stored = await handle.client.resource<Pod>(PODS).get('lower-nominated', { namespace: 'default' });
    assert.equal(stored.status?.nominatedNodeName, undefined);
  });

  it('still nominates when clearing another pod\'s nomination fails', async () => {
    const { handle, plugin } = setup([{ name: 'node-a', cpu: '4', pods: [makePod('low', { priority: 1, cpu: '4', nodeName: 'node-a' })] }]);
    // Nominated but never stored: the status patch fails with NotFound.
    handle.nominator.addNominatedPod(new PodInfo(makePod('ghost', { priority: 50, cpu: '1', nominatedNodeName: 'node-a' })));
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
    assert.equal(outcome.status, undefined);
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
  });

  describe('when preemption cannot help', () => {
    it('reports the nodes without victims and the nodes where preemption is not helpful, and clears the nomination', async () => {
      const { handle, plugin } = setup([
        { name: 'node-a', cpu: '2' },
        { name: 'node-b', cpu: '2', pods: [makePod('b-high', { priority: 500, cpu: '2', nodeName: 'node-b' })] },
        { name: 'node-c', cpu: '2', pods: [makePod('c-same', { priority: 100, cpu: '2', nodeName: 'node-c' })] },
      ]);
      const statuses = insufficientCpu('node-b', 'node-c');
      statuses.set('node-a', unresolvable("node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"));
      const outcome = await plugin.postFilter(new CycleState(), preemptor({ nominatedNodeName: 'node-b' }), statuses);
      assert.equal(outcome.status?.code, Code.Unschedulable);
      assert.equal(outcome.status?.message(), '0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.');
      assert.deepEqual(outcome.result, { nominatingInfo: { nominatedNodeName: '', mode: 'Override' } });
      assert.deepEqual(handle.client.actions, []);
    });

    it('counts every node when none has a victim', async () => {
      const { plugin } = setup([
        { name: 'node-a', cpu: '1', pods: [makePod('a', { priority: 100, cpu: '1', nodeName: 'node-a' })] },
        { name: 'node-b', cpu: '1', pods: [makePod('b', { priority: 100, cpu: '1', nodeName: 'node-b' })] },
        { name: 'node-c', cpu: '1', pods: [makePod('c', { priority: 100, cpu: '1', nodeName: 'node-c' })] },
      ]);
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a', 'node-b', 'node-c'));
      assert.equal(outcome.status?.message(), '0/3 nodes are available: 3 No preemption victims found for incoming pod.');
    });

    it('says why on a node where even all victims are not enough', async () => {
      const { plugin } = setup([{ name: 'node-a', cpu: '1', pods: [makePod('a', { priority: 1, cpu: '1', nodeName: 'node-a' })] }]);
      const outcome = await plugin.postFilter(new CycleState(), preemptor({ cpu: '2' }), insufficientCpu('node-a'));
      assert.equal(outcome.status?.message(), '0/1 nodes are available: 1 Insufficient cpu.');
    });

    it('does not look at nodes that are UnschedulableAndUnresolvable', async () => {
      const { plugin } = setup([
        { name: 'node-a', cpu: '2', pods: [makePod('a', { priority: 1, cpu: '2', nodeName: 'node-a' })] },
        { name: 'node-b', cpu: '2', pods: [makePod('b', { priority: 1, cpu: '2', nodeName: 'node-b' })] },
      ]);
      const statuses = new NodeToStatus();
      statuses.set('node-a', unresolvable("node(s) didn't match Pod's node affinity/selector"));
      statuses.set('node-b', unresolvable("node(s) didn't match Pod's node affinity/selector"));
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), statuses);
      assert.equal(outcome.status?.message(), '0/2 nodes are available: 2 Preemption is not helpful for scheduling.');
    });
  });

  it('considers every node when the absent-nodes status is Unschedulable (a PreFilter rejected the pod)', async () => {
    const { plugin } = setup([
      { name: 'node-a', cpu: '2', pods: [makePod('a', { priority: 1, cpu: '2', nodeName: 'node-a' })] },
      { name: 'node-b', cpu: '2', pods: [makePod('b', { priority: 1, cpu: '2', nodeName: 'node-b' })] },
    ]);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), new NodeToStatus(new Status(Code.Unschedulable, ['Insufficient cpu'])));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
  });

  it('dry-runs from the random offset and stops once enough candidates are found', async () => {
    const nodes = ['node-0', 'node-1', 'node-2', 'node-3'].map((name, i) => ({
      name,
      cpu: '2',
      // node-0 would be the best choice (lowest victim priority), but only one candidate is wanted.
      pods: [makePod(`${name}-pod`, { priority: i === 0 ? 1 : 10 + i, cpu: '2', nodeName: name })],
    }));
    const { handle, plugin } = setup(nodes, { args: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 }, offset: 2 });
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-0', 'node-1', 'node-2', 'node-3'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-2');
    assert.deepEqual(deletedNames(handle), ['node-2-pod']);
  });

  it('gives the same answer when it yields to the event loop after every node', async () => {
    const nodes = ['node-0', 'node-1', 'node-2'].map((name, i) => ({
      name,
      cpu: '2',
      pods: [makePod(`${name}-pod`, { priority: 30 - i * 10, cpu: '2', nodeName: name })],
    }));
    const infos = nodes.map((n) => makeNodeInfo(makeNode(n.name, { cpu: n.cpu }), n.pods));
    const handle = newFakeHandle(infos);
    handle.client.seed(PODS, nodes.flatMap((n) => n.pods));
    const plugin = new DefaultPreemption(DEFAULT_ARGS, handle, { randomInt: () => 1, chunkSize: 1, now: () => NOW });
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-0', 'node-1', 'node-2'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-2');
  });

  it('looks past PDB-violating candidates for one that violates none', async () => {
    const nodes = ['node-0', 'node-1', 'node-2'].map((name, i) => ({
      name,
      cpu: '2',
      pods: [makePod(`${name}-pod`, { priority: 1, cpu: '2', nodeName: name, labels: { app: i === 2 ? 'free' : 'web' } })],
    }));
    const { handle, plugin } = setup(nodes, { args: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 } });
    addPDB(handle, 'web', { app: 'web' }, 0);
    const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-0', 'node-1', 'node-2'));
    assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-2');
  });

  describe('errors', () => {
    it('returns an Error status, without a result, when marking a victim fails', async () => {
      const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('low', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
      handle.client.injectError('patch', 'pods/status', serviceUnavailable('etcd is down'));
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
      assert.equal(outcome.result, undefined);
      assert.equal(outcome.status?.code, Code.Error);
      assert.match(outcome.status?.message() ?? '', /etcd is down/);
      assert.deepEqual(deletedNames(handle), []);
      assert.deepEqual(handle.events.events, []);
    });

    it('returns an Error status when deleting a victim fails', async () => {
      const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('low', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
      handle.client.injectError('delete', 'pods', serviceUnavailable('etcd is down'));
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
      assert.equal(outcome.result, undefined);
      assert.equal(outcome.status?.code, Code.Error);
      assert.deepEqual(handle.events.events, []);
    });

    it('treats a victim that is already gone as preempted, without an event', async () => {
      const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('low', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
      handle.client.injectError('delete', 'pods', notFound(PODS, 'low'));
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
      assert.equal(outcome.status, undefined);
      assert.equal(outcome.result?.nominatingInfo?.nominatedNodeName, 'node-a');
      assert.deepEqual(handle.events.events, []);
    });

    it('returns an Error status when victim selection fails on every node', async () => {
      const { handle, plugin } = setup([{ name: 'node-a', cpu: '2', pods: [makePod('low', { priority: 1, cpu: '2', nodeName: 'node-a' })] }]);
      handle.framework.removePodStatus = new Status(Code.Error, ['state is broken']);
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), insufficientCpu('node-a'));
      assert.equal(outcome.result, undefined);
      assert.equal(outcome.status?.code, Code.Error);
      assert.equal(outcome.status?.message(), 'state is broken');
    });

    it('returns an Error status when the cluster has no nodes', async () => {
      const { plugin } = setup([]);
      const outcome = await plugin.postFilter(new CycleState(), preemptor(), new NodeToStatus());
      assert.equal(outcome.status?.code, Code.Error);
      assert.equal(outcome.status?.message(), 'no nodes available');
    });
  });

  describe('factory', () => {
    it('builds the plugin with default args and registers no cluster events', () => {
      const handle = newFakeHandle([]);
      const plugin = newDefaultPreemption(undefined, handle) as DefaultPreemption;
      assert.equal(plugin.name, 'DefaultPreemption');
      assert.deepEqual(plugin.args, DEFAULT_ARGS);
      assert.deepEqual(plugin.eventsToRegister(), []);
    });

    it('throws for bad args', () => {
      assert.throws(() => newDefaultPreemption({ minCandidateNodesPercentage: 200 }, newFakeHandle([])), /not in valid range \[0, 100\]/);
    });
  });
});
