import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeInfo } from '../../framework/node-info.js';
import type { Pod } from '../../framework/types.js';
import { ExistingAntiAffinityCache } from './existing-anti-affinity-cache.js';
import { existingAntiAffinityCounts } from './filtering.js';
import { makeNode, makePod } from './testing/fake-handle.js';
import { TopologyValueIds } from './topology-pair-counts.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function nodeInfo(name: string, zone: string | undefined, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(...pods);
  info.setNode(makeNode(name, zone === undefined ? {} : { [ZONE]: zone }));
  return info;
}

/** A placed pod whose required anti-affinity selects pods of `group` over `topologyKey`. */
function guard(node: string, group: string, topologyKey = HOST): Pod {
  return makePod({
    labels: { group },
    nodeName: node,
    spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey, labelSelector: { matchLabels: { group } } }] } } },
  });
}

const incoming = (group: string, namespace = 'default'): Pod => makePod({ namespace, labels: { group } });

/** The pairs counted with and without the cache: must agree. */
function pairs(pod: Pod, nodes: NodeInfo[], cache: ExistingAntiAffinityCache): Record<string, number> {
  const keys = [...new Set(nodes.flatMap((n) => [[HOST, n.name], [ZONE, n.node?.metadata.labels?.[ZONE] ?? '']] as const))];
  const read = (c: ReturnType<typeof existingAntiAffinityCounts>): Record<string, number> =>
    Object.fromEntries(keys.map(([k, v]) => [`${k}=${v}`, c.get(k, v)] as const).filter(([, n]) => n !== 0));
  const cached = existingAntiAffinityCounts(pod, undefined, nodes, new TopologyValueIds(), cache);
  const full = existingAntiAffinityCounts(pod, undefined, nodes, new TopologyValueIds());
  assert.equal(cached.size, full.size);
  assert.deepEqual(read(cached), read(full));
  return read(cached);
}

describe('ExistingAntiAffinityCache', () => {
  it('counts as a full walk, and follows pods and nodes that change between cycles', () => {
    const cache = new ExistingAntiAffinityCache();
    const n1 = nodeInfo('n1', 'a', guard('n1', 'g1'), guard('n1', 'g2'));
    const n2 = nodeInfo('n2', 'a', guard('n2', 'g1', ZONE));
    const n3 = nodeInfo('n3', 'b');
    assert.deepEqual(pairs(incoming('g1'), [n1, n2, n3], cache), { [`${HOST}=n1`]: 1, [`${ZONE}=a`]: 1 });
    assert.deepEqual(pairs(incoming('g2'), [n1, n2, n3], cache), { [`${HOST}=n1`]: 1 });

    n3.addPod(guard('n3', 'g1'));
    n1.removePod(n1.pods[0]!.pod);
    assert.deepEqual(pairs(incoming('g1'), [n1, n2, n3], cache), { [`${HOST}=n3`]: 1, [`${ZONE}=a`]: 1 });
    // n2 leaves the list (deleted, or no longer holding such pods).
    assert.deepEqual(pairs(incoming('g1'), [n1, n3], cache), { [`${HOST}=n3`]: 1 });
    assert.deepEqual(pairs(incoming('g1'), [], cache), {});
  });

  it('keeps pods of other namespaces or labels apart, and evicts beyond its size', () => {
    const cache = new ExistingAntiAffinityCache(1);
    const nodes = [nodeInfo('n1', 'a', guard('n1', 'g1'))];
    assert.deepEqual(pairs(incoming('g1'), nodes, cache), { [`${HOST}=n1`]: 1 });
    assert.deepEqual(pairs(incoming('g1', 'other'), nodes, cache), {});
    assert.deepEqual(pairs(incoming('g2'), nodes, cache), {});
    assert.deepEqual(pairs(incoming('g1'), nodes, cache), { [`${HOST}=n1`]: 1 });
  });
});
