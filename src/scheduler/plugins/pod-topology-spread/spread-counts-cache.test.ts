import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { NodeInfo } from '../../framework/node-info.js';
import type { Pod } from '../../framework/types.js';
import { makeNode, makePod } from '../inter-pod-affinity/testing/fake-handle.js';
import { filterTopologySpreadConstraints } from './constraints.js';
import { computePreFilterState } from './filtering.js';
import { SpreadCountsCache } from './spread-counts-cache.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function constraints(keys: string[], selector: Record<string, string> = { app: 'web' }): ReturnType<typeof filterTopologySpreadConstraints> {
  const raw: TopologySpreadConstraint[] = keys.map((topologyKey) => ({ maxSkew: 1, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: selector } }));
  return filterTopologySpreadConstraints(raw, undefined, 'DoNotSchedule');
}

function nodeInfo(name: string, zone: string | undefined, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(...pods);
  info.setNode(makeNode(name, { [HOST]: name, ...(zone === undefined ? {} : { [ZONE]: zone }) }));
  return info;
}

function web(node: string, labels: Record<string, string> = { app: 'web' }): Pod {
  return makePod({ labels, nodeName: node });
}

/** The cached counts equal a full count, as maps compared by content. */
function assertSameAsFullCount(cache: SpreadCountsCache, nodes: NodeInfo[], keys: string[]): void {
  const incoming = makePod({ labels: { app: 'web' } });
  const cs = constraints(keys);
  const cached = computePreFilterState(incoming, cs, nodes, cache);
  const full = computePreFilterState(incoming, cs, nodes);
  cs.forEach((_, i) => {
    assert.deepEqual(new Map([...cached.matchNum[i]!].sort()), new Map([...full.matchNum[i]!].sort()));
    assert.equal(cached.minMatchNum(i), full.minMatchNum(i));
    assert.equal(cached.domainsNum[i], full.domainsNum[i]);
  });
}

describe('SpreadCountsCache', () => {
  it('counts as a full walk, and follows pods and nodes that change between cycles', () => {
    const cache = new SpreadCountsCache();
    const n1 = nodeInfo('n1', 'a', web('n1'), web('n1', { app: 'db' }));
    const n2 = nodeInfo('n2', 'a');
    const n3 = nodeInfo('n3', 'b', web('n3'));
    const n4 = nodeInfo('n4', undefined, web('n4'));
    let nodes = [n1, n2, n3, n4];
    assertSameAsFullCount(cache, nodes, [ZONE]);
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([ZONE]), 0, 'default')), { a: 1, b: 1 });

    // A pod added, one removed, a node relabelled into a new zone, one deleted, one added.
    n2.addPod(web('n2'));
    n1.removePod(n1.pods[0]!.pod);
    n4.setNode(makeNode('n4', { [HOST]: 'n4', [ZONE]: 'c' }));
    const n5 = nodeInfo('n5', 'b', web('n5'), web('n5'));
    nodes = [n2, n4, n5, n1];
    assertSameAsFullCount(cache, nodes, [ZONE]);
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([ZONE]), 0, 'default')), { a: 1, b: 2, c: 1 });

    // The last node of a zone goes: the zone is no longer a domain.
    nodes = [n2, n5, n1];
    assertSameAsFullCount(cache, nodes, [ZONE]);
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([ZONE]), 0, 'default')), { a: 1, b: 2 });
  });

  it('keeps separate counts per selector, namespace and set of topology keys', () => {
    const cache = new SpreadCountsCache();
    const nodes = [nodeInfo('n1', 'a', web('n1')), nodeInfo('n2', undefined, web('n2'), web('n2', { app: 'db' }))];
    assertSameAsFullCount(cache, nodes, [HOST]);
    assertSameAsFullCount(cache, nodes, [HOST, ZONE]);
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([HOST]), 0, 'default')), { n1: 1, n2: 1 });
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([HOST, ZONE]), 0, 'default')), { n1: 1 });
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([HOST], { app: 'db' }), 0, 'default')), { n1: 0, n2: 1 });
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([HOST]), 0, 'other')), { n1: 0, n2: 0 });
  });

  it('evicts the least recently used entry beyond its size, and recounts it when asked again', () => {
    const cache = new SpreadCountsCache(1);
    const nodes = [nodeInfo('n1', 'a', web('n1'))];
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([ZONE]), 0, 'default')), { a: 1 });
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([HOST]), 0, 'default')), { n1: 1 });
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([ZONE]), 0, 'default')), { a: 1 });
  });

  it('hands out a copy: changing it leaves the next cycle unaffected', () => {
    const cache = new SpreadCountsCache();
    const nodes = [nodeInfo('n1', 'a', web('n1'))];
    cache.counts(nodes, constraints([ZONE]), 0, 'default').set('a', 99);
    assert.deepEqual(Object.fromEntries(cache.counts(nodes, constraints([ZONE]), 0, 'default')), { a: 1 });
  });
});
