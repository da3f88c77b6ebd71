import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeInfo } from '../../framework/node-info.js';
import { PodInfo, type Pod } from '../../framework/types.js';
import { incomingAffinityAntiAffinityCounts, incomingPodTerms } from './filtering.js';
import { IncomingTermCounts } from './incoming-term-counts.js';
import { makeNode, makePod } from './testing/fake-handle.js';
import { TopologyValueIds } from './topology-pair-counts.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function nodeInfo(name: string, zone: string | undefined, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(...pods);
  info.setNode(makeNode(name, zone === undefined ? {} : { [ZONE]: zone }));
  return info;
}

function antiAffinityPod(group: string, topologyKey: string, namespace = 'default'): Pod {
  return makePod({
    namespace,
    labels: { group },
    spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey, labelSelector: { matchLabels: { group } } }] } } },
  });
}

const member = (node: string, group = 'g1', namespace = 'default'): Pod => makePod({ namespace, labels: { group }, nodeName: node });

/** Pairs counted for the incoming pod, with and without the cache: must agree. */
function pairs(incomingPod: Pod, nodes: NodeInfo[], cache: IncomingTermCounts): Record<string, number> {
  const info = new PodInfo(incomingPod);
  const incoming = incomingPodTerms(incomingPod, info.requiredAffinityTerms, info.requiredAntiAffinityTerms);
  const keys = [...new Set(nodes.flatMap((n) => [`${HOST}=${n.name}`, `${ZONE}=${n.node?.metadata.labels?.[ZONE] ?? ''}`]))];
  const read = (c: ReturnType<typeof incomingAffinityAntiAffinityCounts>): Record<string, number> =>
    Object.fromEntries(keys.map((k) => [k, c.antiAffinity.get(k.split('=')[0]!, k.split('=')[1]!)] as const).filter(([, v]) => v !== 0));
  const cached = read(incomingAffinityAntiAffinityCounts(incoming, nodes, new TopologyValueIds(), cache));
  const full = read(incomingAffinityAntiAffinityCounts(incoming, nodes, new TopologyValueIds()));
  assert.deepEqual(cached, full);
  return cached;
}

describe('IncomingTermCounts', () => {
  it('counts as a full walk, and follows pods and nodes that change between cycles', () => {
    const cache = new IncomingTermCounts();
    const n1 = nodeInfo('n1', 'a', member('n1'), member('n1', 'g2'));
    const n2 = nodeInfo('n2', 'a');
    const n3 = nodeInfo('n3', 'b', member('n3'), member('n3', 'g1', 'other'));
    const incoming = antiAffinityPod('g1', HOST);
    assert.deepEqual(pairs(incoming, [n1, n2, n3], cache), { [`${HOST}=n1`]: 1, [`${HOST}=n3`]: 1 });
    assert.deepEqual(pairs(antiAffinityPod('g1', ZONE), [n1, n2, n3], cache), { [`${ZONE}=a`]: 1, [`${ZONE}=b`]: 1 });

    n2.addPod(member('n2'));
    n1.removePod(n1.pods[0]!.pod);
    const n4 = nodeInfo('n4', 'b', member('n4'), member('n4'));
    assert.deepEqual(pairs(incoming, [n2, n3, n4, n1], cache), { [`${HOST}=n2`]: 1, [`${HOST}=n3`]: 1, [`${HOST}=n4`]: 2 });
    // n3 deleted, n4 renamed and moved to zone c: counts go with them.
    n4.setNode(makeNode('n5-renamed-label', { [ZONE]: 'c' }));
    assert.deepEqual(pairs(antiAffinityPod('g1', ZONE), [n2, n4, n1], cache), { [`${ZONE}=a`]: 1, [`${ZONE}=c`]: 2 });
    assert.deepEqual(pairs(incoming, [n1, n2], cache), { [`${HOST}=n2`]: 1 });
  });

  it('keeps terms of other namespaces and selectors apart, and evicts beyond its size', () => {
    const cache = new IncomingTermCounts(1);
    const nodes = [nodeInfo('n1', 'a', member('n1'), member('n1', 'g2'), member('n1', 'g1', 'other'))];
    assert.deepEqual(pairs(antiAffinityPod('g1', HOST), nodes, cache), { [`${HOST}=n1`]: 1 });
    assert.deepEqual(pairs(antiAffinityPod('g2', HOST), nodes, cache), { [`${HOST}=n1`]: 1 });
    assert.deepEqual(pairs(antiAffinityPod('g1', HOST, 'other'), nodes, cache), { [`${HOST}=n1`]: 1 });
    assert.deepEqual(pairs(antiAffinityPod('g3', HOST), nodes, cache), {});
  });
});
