import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node } from '../framework/types.js';
import { NodeTree, zoneKey } from './node-tree.js';

function node(name: string, labels?: Record<string, string>): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, ...(labels === undefined ? {} : { labels }) } };
}

const zone = (z: string): Record<string, string> => ({ 'topology.kubernetes.io/zone': z });

describe('zoneKey', () => {
  it('joins region and zone, preferring the beta labels as upstream', () => {
    assert.equal(zoneKey(node('n')), '');
    assert.equal(zoneKey(node('n', { other: 'x' })), '');
    assert.equal(zoneKey(node('n', zone('a'))), ':\u0000:a');
    assert.equal(zoneKey(node('n', { 'topology.kubernetes.io/region': 'r' })), 'r:\u0000:');
    assert.equal(
      zoneKey(node('n', { ...zone('ga'), 'failure-domain.beta.kubernetes.io/zone': 'beta', 'topology.kubernetes.io/region': 'r', 'failure-domain.beta.kubernetes.io/region': 'br' })),
      'br:\u0000:beta',
    );
  });
});

describe('NodeTree', () => {
  it('interleaves zones round-robin in the order zones appeared', () => {
    const t = new NodeTree();
    for (const [name, z] of [['a1', 'a'], ['a2', 'a'], ['a3', 'a'], ['b1', 'b'], ['b2', 'b'], ['c1', 'c']] as const) t.addNode(node(name, zone(z)));
    t.addNode(node('none'));
    assert.equal(t.numNodes, 7);
    assert.deepEqual(t.list(), ['a1', 'b1', 'c1', 'none', 'a2', 'b2', 'a3']);
  });

  it('ignores a node added twice, and reports nodes it does not hold', () => {
    const t = new NodeTree();
    assert.equal(t.addNode(node('a1', zone('a'))), true);
    assert.equal(t.addNode(node('a1', zone('a'))), false);
    assert.equal(t.numNodes, 1);
    assert.equal(t.removeNode(node('x', zone('a'))), false);
    assert.equal(t.removeNode(node('a1', zone('b'))), false);
    assert.equal(t.numNodes, 1);
  });

  it('removes nodes and empty zones', () => {
    const t = new NodeTree();
    t.addNode(node('a1', zone('a')));
    t.addNode(node('b1', zone('b')));
    t.addNode(node('b2', zone('b')));
    assert.equal(t.removeNode(node('a1', zone('a'))), true);
    assert.deepEqual(t.list(), ['b1', 'b2']);
    t.addNode(node('a2', zone('a')));
    assert.deepEqual(t.list(), ['b1', 'a2', 'b2'], 'zone a comes back last');
    t.removeNode(node('b1', zone('b')));
    t.removeNode(node('b2', zone('b')));
    t.removeNode(node('a2', zone('a')));
    assert.deepEqual(t.list(), []);
    assert.equal(t.numNodes, 0);
  });

  it('moves a node whose zone changed, and ignores other updates', () => {
    const t = new NodeTree();
    t.addNode(node('n1', zone('a')));
    t.addNode(node('n2', zone('a')));
    assert.equal(t.updateNode(node('n1', zone('a')), node('n1', { ...zone('a'), other: 'x' })), false);
    assert.equal(t.updateNode(node('n1', zone('a')), node('n1', zone('b'))), true);
    assert.deepEqual(t.list(), ['n2', 'n1']);
    assert.equal(t.numNodes, 2);
    assert.equal(t.updateNode(undefined, node('n3', zone('b'))), true);
    assert.equal(t.numNodes, 3);
  });
});
