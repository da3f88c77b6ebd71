import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { newSchedulerCache } from '../../cache/cache.js';
import type { CacheSnapshot } from '../../cache/snapshot.js';
import type { NodeInfoChanges } from '../../framework/interfaces.js';
import { NodeInfo } from '../../framework/node-info.js';
import { PodInfo, type Pod } from '../../framework/types.js';
import { ExistingAntiAffinityCache } from '../inter-pod-affinity/existing-anti-affinity-cache.js';
import { existingAntiAffinityCounts, incomingAffinityAntiAffinityCounts, incomingPodTerms } from '../inter-pod-affinity/filtering.js';
import { IncomingTermCounts } from '../inter-pod-affinity/incoming-term-counts.js';
import { makeNode, makePod } from '../inter-pod-affinity/testing/fake-handle.js';
import { TopologyValueIds } from '../inter-pod-affinity/topology-pair-counts.js';
import { filterTopologySpreadConstraints } from '../pod-topology-spread/constraints.js';
import { computePreFilterState } from '../pod-topology-spread/filtering.js';
import { SpreadCountsCache } from '../pod-topology-spread/spread-counts-cache.js';
import { ChangedNodes, changeFeedOf } from './changed-nodes.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function node(name: string, zone: string): ReturnType<typeof makeNode> {
  return makeNode(name, { [HOST]: name, [ZONE]: zone });
}

/** A placed pod of `group`, with required anti-affinity towards its group over hostnames when `guard`. */
function member(name: string, nodeName: string, group: string, guard = false): Pod {
  return makePod({
    name,
    labels: { group },
    nodeName,
    ...(guard
      ? { spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: HOST, labelSelector: { matchLabels: { group } } }] } } } }
      : {}),
  });
}

function incomingWithAntiAffinity(group: string, topologyKey: string): Pod {
  return makePod({
    labels: { group },
    spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey, labelSelector: { matchLabels: { group } } }] } } },
  });
}

const spreadConstraints = (group: string): ReturnType<typeof filterTopologySpreadConstraints> =>
  filterTopologySpreadConstraints(
    [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { group } } } satisfies TopologySpreadConstraint],
    undefined,
    'DoNotSchedule',
  );

describe('ChangedNodes', () => {
  it('visits every node without a feed, or when the feed cannot tell; else only the changed ones', () => {
    const a = new NodeInfo();
    const b = new NodeInfo();
    const tracker = new ChangedNodes();
    assert.deepEqual(tracker.visit([a, b], undefined), { nodes: [a, b], full: true });
    const asked: number[] = [];
    const answers: NodeInfoChanges[] = [
      { generation: 7, changed: undefined },
      { generation: 9, changed: [b] },
    ];
    const feed = (since: number): NodeInfoChanges => {
      asked.push(since);
      return answers.shift()!;
    };
    assert.deepEqual(tracker.visit([a, b], feed), { nodes: [a, b], full: true });
    assert.deepEqual(tracker.visit([a, b], feed), { nodes: [b], full: false });
    assert.deepEqual(asked, [-1, 7]);
  });

  it('the caches fed by a snapshot count as a full walk over a stream of cluster changes', () => {
    const cache = newSchedulerCache();
    for (let i = 0; i < 6; i++) cache.addNode(node(`n${i}`, `z${i % 2}`));
    const snapshot = cache.newSnapshot() as CacheSnapshot;
    const feed = changeFeedOf(snapshot.nodeInfos());
    assert.notEqual(feed, undefined);
    const terms = new IncomingTermCounts(2);
    const existing = new ExistingAntiAffinityCache(2);
    const spread = new SpreadCountsCache(2);
    let n = 0;
    const placed: Pod[] = [];
    const step = (change: () => void): void => {
      change();
      cache.updateSnapshot(snapshot);
      const nodes = snapshot.list();
      for (const group of ['g0', 'g1', 'g2']) {
        const anti = incomingWithAntiAffinity(group, HOST);
        const info = new PodInfo(anti);
        const inc = incomingPodTerms(anti, info.requiredAffinityTerms, info.requiredAntiAffinityTerms);
        const viaFeed = incomingAffinityAntiAffinityCounts(inc, nodes, new TopologyValueIds(), terms, feed).antiAffinity.entries().sort();
        const full = incomingAffinityAntiAffinityCounts(inc, nodes, new TopologyValueIds()).antiAffinity.entries().sort();
        assert.deepEqual(viaFeed, full, `incoming anti-affinity of ${group} after ${n} changes`);

        const plain = makePod({ labels: { group } });
        const withAnti = snapshot.havePodsWithRequiredAntiAffinityList();
        const e1 = existingAntiAffinityCounts(plain, undefined, withAnti, new TopologyValueIds(), existing, feed).entries().sort();
        const e2 = existingAntiAffinityCounts(plain, undefined, withAnti, new TopologyValueIds()).entries().sort();
        assert.deepEqual(e1, e2, `existing anti-affinity towards ${group} after ${n} changes`);

        const cs = spreadConstraints(group);
        const s1 = computePreFilterState(plain, cs, nodes, spread, feed);
        const s2 = computePreFilterState(plain, cs, nodes);
        assert.deepEqual([...s1.matchNum[0]!].sort(), [...s2.matchNum[0]!].sort(), `spread of ${group} after ${n} changes`);
      }
    };
    step(() => undefined);
    for (let i = 0; i < 40; i++) {
      step(() => {
        n++;
        const pod = member(`p${n}`, `n${(n * 7) % 6}`, `g${n % 3}`, n % 2 === 0);
        if (n % 5 === 0 && placed.length > 0) cache.removePod(placed.shift()!);
        if (n % 11 === 0) cache.updateNode(node('n1', 'z0'), node('n1', 'z1'));
        if (n % 13 === 0) cache.addNode(node(`extra${n}`, 'z0'));
        if (n % 17 === 0) cache.removeNode(node('n5', 'z1'));
        cache.addPod(pod);
        placed.push(pod);
      });
    }
  });
});
