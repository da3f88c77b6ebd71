import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { Code } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { NAME, NodeResourcesFit, isExtendedResourceName, newNodeResourcesFit } from './node-resources-fit.js';

const handle = makeHandle();
const fit = (args?: unknown): NodeResourcesFit => newNodeResourcesFit(args, handle) as NodeResourcesFit;
const node = (allocatable: Record<string, string>) => makeNode('n', { allocatable });
const assigned = (name: string, requests: Record<string, string>): Pod => makePod(name, { nodeName: 'n', requests });

function runFilter(plugin: NodeResourcesFit, pod: Pod, nodeInfo: ReturnType<typeof makeNodeInfo>) {
  const state = newState();
  assert.equal(plugin.preFilter(state, pod).status, undefined);
  return plugin.filter(state, pod, nodeInfo);
}

function runScore(plugin: NodeResourcesFit, pod: Pod, nodeInfo: ReturnType<typeof makeNodeInfo>): number {
  const state = newState();
  assert.equal(plugin.preScore(state, pod), undefined);
  return plugin.score(state, pod, nodeInfo) as number;
}

describe('NodeResourcesFit', () => {
  it('is named as upstream', () => assert.equal(NAME, 'NodeResourcesFit'));

  describe('Filter', () => {
    const plugin = fit();
    const big = { cpu: '4', memory: '8Gi', 'ephemeral-storage': '10Gi', pods: '110', 'example.com/gpu': '2', 'hugepages-2Mi': '10Mi' };

    it('passes a pod that fits, and a pod that requests nothing', () => {
      assert.equal(runFilter(plugin, makePod('p', { requests: { cpu: '2', memory: '4Gi' } }), makeNodeInfo(node(big), assigned('a', { cpu: '2', memory: '4Gi' }))), undefined);
      assert.equal(runFilter(plugin, makePod('p'), makeNodeInfo(node({ pods: '1' }))), undefined);
    });

    it('gives one upstream reason per short resource, all kept', () => {
      const cases: Array<[Record<string, string>, string[]]> = [
        [{ cpu: '3' }, ['Insufficient cpu']],
        [{ memory: '5Gi' }, ['Insufficient memory']],
        [{ 'ephemeral-storage': '11Gi' }, ['Insufficient ephemeral-storage']],
        [{ 'example.com/gpu': '3' }, ['Insufficient example.com/gpu']],
        [{ 'hugepages-2Mi': '20Mi' }, ['Insufficient hugepages-2Mi']],
        [{ 'example.com/fpga': '1' }, ['Insufficient example.com/fpga']],
        [{ cpu: '3', memory: '5Gi', 'example.com/gpu': '3' }, ['Insufficient cpu', 'Insufficient memory', 'Insufficient example.com/gpu']],
      ];
      const used = makeNodeInfo(node(big), assigned('a', { cpu: '2', memory: '4Gi' }));
      for (const [requests, reasons] of cases) {
        const status = runFilter(plugin, makePod('p', { requests }), used);
        assert.equal(status?.code, Code.Unschedulable, JSON.stringify(requests));
        assert.deepEqual(status?.reasons, reasons);
      }
    });

    it('counts pods against allocatable pods ("Too many pods"), before the other reasons', () => {
      const full = makeNodeInfo(node({ cpu: '1', pods: '1' }), assigned('a', {}));
      assert.deepEqual(runFilter(plugin, makePod('p'), full)?.reasons, ['Too many pods']);
      assert.deepEqual(runFilter(plugin, makePod('p', { requests: { cpu: '2' } }), full)?.reasons, ['Too many pods', 'Insufficient cpu']);
      assert.deepEqual(runFilter(plugin, makePod('p'), makeNodeInfo(node({ cpu: '1' })))?.reasons, ['Too many pods']);
    });

    it('counts init containers, sidecars and overhead as upstream', () => {
      const nodeInfo = makeNodeInfo(node({ cpu: '2', memory: '1Gi', pods: '10' }));
      const initHeavy = makePod('p', {
        containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1' } } }],
        initContainers: [{ name: 'i', image: 'x', resources: { requests: { cpu: '3' } } }],
      });
      assert.deepEqual(runFilter(plugin, initHeavy, nodeInfo)?.reasons, ['Insufficient cpu']);
      const sidecar = makePod('p', {
        containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1500m' } } }],
        initContainers: [{ name: 's', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '1' } } }],
      });
      assert.deepEqual(runFilter(plugin, sidecar, nodeInfo)?.reasons, ['Insufficient cpu']);
      const overhead = makePod('p', { requests: { cpu: '1500m' } });
      overhead.spec!.overhead = { cpu: '600m' };
      assert.deepEqual(runFilter(plugin, overhead, nodeInfo)?.reasons, ['Insufficient cpu']);
    });

    it('ignores extended resources named by ignoredResources and ignoredResourceGroups, never native ones', () => {
      const nodeInfo = makeNodeInfo(node({ cpu: '1', pods: '10' }));
      const ignoring = fit({ ignoredResources: ['example.com/gpu'], ignoredResourceGroups: ['vendor.io', 'hugepages-2Mi'] });
      assert.equal(runFilter(ignoring, makePod('p', { requests: { 'example.com/gpu': '1', 'vendor.io/nic': '2' } }), nodeInfo), undefined);
      assert.deepEqual(runFilter(ignoring, makePod('p', { requests: { 'example.com/fpga': '1' } }), nodeInfo)?.reasons, ['Insufficient example.com/fpga']);
      assert.deepEqual(runFilter(ignoring, makePod('p', { requests: { 'hugepages-2Mi': '2Mi' } }), nodeInfo)?.reasons, ['Insufficient hugepages-2Mi']);
      assert.equal(isExtendedResourceName('example.com/gpu'), true);
      assert.equal(isExtendedResourceName('kubernetes.io/batch'), false);
      assert.equal(isExtendedResourceName('cpu'), false);
      assert.equal(isExtendedResourceName('requests.example.com/gpu'), false);
    });

    it('returns an Error status when PreFilter did not run', () => {
      assert.equal(plugin.filter(newState(), makePod('p'), makeNodeInfo(node(big)))?.code, Code.Error);
    });
  });

  describe('Score', () => {
    const allocatable = { cpu: '4', memory: '8Gi', pods: '110', 'example.com/gpu': '4' };
    const empty = makeNodeInfo(node(allocatable));
    const pod = makePod('p', { requests: { cpu: '1', memory: '2Gi' } });

    it('LeastAllocated (the default): mean of free fractions', () => {
      assert.equal(runScore(fit(), pod, empty), 75);
      assert.equal(runScore(fit(), pod, makeNodeInfo(node(allocatable), assigned('a', { cpu: '2', memory: '2Gi' }))), 37); // cpu 25, memory 50
      // A pod without requests counts as 100m / 200Mi.
      assert.equal(runScore(fit(), makePod('q'), empty), 97);
      // Over capacity scores 0 for that resource.
      assert.equal(runScore(fit(), makePod('q', { requests: { cpu: '5', memory: '2Gi' } }), empty), 37);
    });

    it('weights resources, and leaves out scalar resources the pod does not request', () => {
      const weighted = fit({ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 3 }, { name: 'memory', weight: 1 }] } });
      assert.equal(runScore(weighted, makePod('q', { requests: { cpu: '2', memory: '2Gi' } }), empty), 56); // (50·3 + 75) / 4
      const withGpu = fit({ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'example.com/gpu', weight: 1 }] } });
      assert.equal(runScore(withGpu, pod, empty), 75);
      assert.equal(runScore(withGpu, makePod('g', { requests: { cpu: '1', 'example.com/gpu': '4' } }), empty), 37); // (75 + 0) / 2
      const missing = fit({ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'example.com/other', weight: 1 }] } });
      assert.equal(runScore(missing, makePod('g', { requests: { 'example.com/other': '1' } }), empty), 0);
    });

    it('MostAllocated: mean of used fractions, capped', () => {
      const most = fit({ scoringStrategy: { type: 'MostAllocated' } });
      assert.equal(runScore(most, pod, empty), 25);
      assert.equal(runScore(most, makePod('q', { requests: { cpu: '8', memory: '2Gi' } }), empty), 62); // (100 + 25) / 2
    });

    it('RequestedToCapacityRatio: the shape (0..10 → 0..100), rounded', () => {
      const up = fit({ scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] } } });
      assert.equal(runScore(up, pod, empty), 25);
      const down = fit({ scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] } } });
      assert.equal(runScore(down, pod, empty), 75);
      // Over capacity counts as 100% utilization; resources scoring 0 are left out of the mean.
      assert.equal(runScore(down, makePod('q', { requests: { cpu: '5', memory: '2Gi' } }), empty), 75);
      const steps = fit({
        scoringStrategy: {
          type: 'RequestedToCapacityRatio',
          resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 2 }],
          requestedToCapacityRatio: { shape: [{ utilization: 30, score: 2 }, { utilization: 60, score: 5 }] },
        },
      });
      // cpu 25% → 20 (flat before the first point); memory 50% → 20 + 30·20/30 = 40; (20 + 80) / 3 = 33.3 → 33
      assert.equal(runScore(steps, makePod('s', { requests: { cpu: '1', memory: '4Gi' } }), empty), 33);
      // memory 75% → 50 (flat after the last point): (20 + 100) / 3 = 40
      assert.equal(runScore(steps, makePod('s', { requests: { cpu: '1', memory: '6Gi' } }), empty), 40);
    });

    it('scores without PreScore state (PreScore disabled)', () => {
      assert.equal(fit().score(newState(), pod, empty), 75);
      assert.equal(fit().scoreExtensions(), undefined);
    });
  });

  describe('args', () => {
    it('defaults to LeastAllocated on cpu and memory with weight 1, and weight 0 to 1', () => {
      assert.deepEqual(fit().args, { ignoredResources: [], ignoredResourceGroups: [], scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] } });
      assert.deepEqual(fit({ scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 0 }] } }).args.scoringStrategy.resources, [{ name: 'cpu', weight: 1 }]);
    });

    it('refuses bad args with upstream messages naming the field', () => {
      const cases: Array<[unknown, string]> = [
        [42, 'want args to be of type NodeResourcesFitArgs, got number'],
        [{ ignoredResources: 'x' }, 'ignoredResources: must be a list, got string'],
        [{ ignoredResources: ['-bad'] }, 'ignoredResources[0]: Invalid value: "-bad": name part must consist of alphanumeric characters'],
        [{ ignoredResourceGroups: ['example.com/x'] }, `ignoredResourceGroups[0]: Invalid value: "example.com/x": resource group name can't contain '/'`],
        [{ scoringStrategy: { type: 'Balanced' } }, 'scoringStrategy.type: Unsupported value: "Balanced": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'],
        [{ scoringStrategy: { resources: [{ name: 'cpu', weight: 1 }] } }, 'scoringStrategy.type: Unsupported value: ""'],
        [{ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 101 }] } }, 'scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]'],
        [{ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: -1 }] } }, 'scoringStrategy.resources[0].weight: Invalid value: -1'],
        [{ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1.5 }] } }, 'scoringStrategy.resources[0].weight: must be an integer'],
        [{ scoringStrategy: { type: 'LeastAllocated', resources: [{ weight: 1 }] } }, 'scoringStrategy.resources[0].name: must be a string'],
        [{ scoringStrategy: { type: 'LeastAllocated', resources: ['cpu'] } }, 'scoringStrategy.resources[0]: must be an object, got string'],
        [{ scoringStrategy: 'LeastAllocated' }, 'scoringStrategy: must be an object, got string'],
        [{ ignoredResourceGroups: [1] }, 'ignoredResourceGroups[0]: must be a string, got number'],
        [{ scoringStrategy: { type: 'RequestedToCapacityRatio' } }, 'scoringStrategy.requestedToCapacityRatio: Required value'],
        [{ scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [] } } }, 'scoringStrategy.shape: Required value: at least one point must be specified'],
        [
          { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 50, score: 1 }, { utilization: 50, score: 2 }] } } },
          'scoringStrategy.shape[1].utilization: Invalid value: 50: utilization values must be sorted in increasing order',
        ],
        [{ scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 101, score: 1 }] } } }, 'scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]'],
        [{ scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 10, score: 11 }] } } }, 'scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]'],
      ];
      for (const [args, message] of cases) {
        assert.throws(() => fit(args), (e: Error) => e.message.includes(message), `${JSON.stringify(args)} → ${message}`);
      }
      assert.throws(() => fit({ scoringStrategy: { type: 'X', resources: [{ name: 'cpu', weight: 200 }] } }), /^Error: \[scoringStrategy.type: .*, scoringStrategy.resources\[0\].weight: .*\]$/);
    });
  });

  describe('events', () => {
    const plugin = fit();
    const [podEvent, ownEvent, nodeEvent] = plugin.eventsToRegister();
    const pod = makePod('p', { requests: { cpu: '2', 'example.com/gpu': '1' } });

    it('re-queues on the pending pod\'s own scale-down', () => {
      assert.equal(ownEvent?.event.resource, 'UnscheduledPod');
      assert.equal(ownEvent?.event.actionType, ActionType.UpdatePodScaleDown);
      assert.equal(ownEvent?.hint?.(pod, pod, pod), QueueingHint.Queue);
      assert.equal(ownEvent?.hint?.(pod, makePod('o'), makePod('o')), QueueingHint.Skip);
    });

    it('registers Pod Delete|UpdatePodScaleDown and Node Add|UpdateNodeAllocatable', () => {
      assert.equal(podEvent?.event.resource, 'Pod');
      assert.equal(podEvent?.event.actionType, ActionType.Delete | ActionType.UpdatePodScaleDown);
      assert.equal(nodeEvent?.event.resource, 'Node');
      assert.equal(nodeEvent?.event.actionType, ActionType.Add | ActionType.UpdateNodeAllocatable);
    });

    it('re-queues on the deletion of an assigned pod only', () => {
      assert.equal(podEvent?.hint?.(pod, assigned('a', {}), undefined), QueueingHint.Queue);
      assert.equal(podEvent?.hint?.(pod, makePod('u'), undefined), QueueingHint.Skip);
    });

    it('re-queues on a scale-down of something the pod requests, or of the pod itself', () => {
      assert.equal(podEvent?.hint?.(pod, assigned('a', { cpu: '2' }), { ...assigned('a', { cpu: '1' }), metadata: { name: 'a', uid: 'x' } }), QueueingHint.Queue);
      assert.equal(podEvent?.hint?.(pod, assigned('a', { memory: '2Gi' }), assigned('a', { memory: '1Gi' })), QueueingHint.Skip);
      assert.equal(podEvent?.hint?.(pod, assigned('a', { 'example.com/gpu': '2' }), assigned('a', { 'example.com/gpu': '1' })), QueueingHint.Queue);
      assert.equal(podEvent?.hint?.(pod, makePod('u', { requests: { cpu: '2' } }), makePod('u', { requests: { cpu: '1' } })), QueueingHint.Skip);
      assert.equal(podEvent?.hint?.(pod, pod, pod), QueueingHint.Queue);
    });

    it('re-queues on a node that fits, added or grown in a requested resource', () => {
      const small = node({ cpu: '1', pods: '10', 'example.com/gpu': '1' });
      const bigger = node({ cpu: '4', pods: '10', 'example.com/gpu': '1' });
      const moreMemory = node({ cpu: '4', memory: '1Gi', pods: '10', 'example.com/gpu': '1' });
      const morePods = node({ cpu: '4', memory: '1Gi', pods: '20', 'example.com/gpu': '1' });
      const moreGpu = node({ cpu: '4', memory: '1Gi', pods: '20', 'example.com/gpu': '2' });
      assert.equal(nodeEvent?.hint?.(pod, undefined, bigger), QueueingHint.Queue);
      assert.equal(nodeEvent?.hint?.(pod, undefined, small), QueueingHint.Skip);
      assert.equal(nodeEvent?.hint?.(pod, small, bigger), QueueingHint.Queue);
      assert.equal(nodeEvent?.hint?.(pod, bigger, moreMemory), QueueingHint.Skip);
      assert.equal(nodeEvent?.hint?.(pod, moreMemory, morePods), QueueingHint.Queue);
      assert.equal(nodeEvent?.hint?.(pod, morePods, moreGpu), QueueingHint.Queue);
      assert.equal(nodeEvent?.hint?.(pod, bigger, small), QueueingHint.Skip);
    });
  });
});
