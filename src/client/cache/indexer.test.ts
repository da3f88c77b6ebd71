import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { newIndexer } from './indexer.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX } from './interfaces.js';

function pod(namespace: string, name: string, extra: { owner?: string; node?: string; rv?: string } = {}): KubeObject {
  return {
    metadata: {
      namespace,
      name,
      ...(extra.rv !== undefined ? { resourceVersion: extra.rv } : {}),
      ...(extra.owner !== undefined
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: extra.owner, controller: true }, { apiVersion: 'v1', kind: 'X', name: 'x', uid: 'not-controller' }] }
        : {}),
    },
    spec: extra.node !== undefined ? { nodeName: extra.node } : {},
  };
}

const byNode = (o: KubeObject): readonly string[] => {
  const node = (o.spec as { nodeName?: string } | undefined)?.nodeName;
  return node !== undefined ? [node] : [];
};

const names = (objects: readonly KubeObject[]): string[] => objects.map((o) => o.metadata.name ?? '').sort();

describe('indexer', () => {
  it('keys objects by namespace/name, or name when cluster-scoped', () => {
    const indexer = newIndexer();
    indexer.upsert(pod('default', 'a'));
    indexer.upsert({ metadata: { name: 'node-1' } });
    assert.deepEqual(indexer.keys().sort(), ['default/a', 'node-1']);
    assert.equal(indexer.get('default/a')?.metadata.name, 'a');
    assert.equal(indexer.get('node-1')?.metadata.name, 'node-1');
    assert.equal(indexer.size, 2);
  });

  it('has the namespace index; cluster-scoped objects are not in it', () => {
    const indexer = newIndexer();
    indexer.upsert(pod('a', 'p1'));
    indexer.upsert(pod('a', 'p2'));
    indexer.upsert(pod('b', 'p3'));
    indexer.upsert({ metadata: { name: 'node-1' } });
    assert.deepEqual(names(indexer.byIndex(NAMESPACE_INDEX, 'a')), ['p1', 'p2']);
    assert.deepEqual(names(indexer.byIndex(NAMESPACE_INDEX, 'b')), ['p3']);
    assert.deepEqual(indexer.byIndex(NAMESPACE_INDEX, ''), []);
  });

  it('has the controller-uid index, by the owner reference with controller=true only', () => {
    const indexer = newIndexer();
    indexer.upsert(pod('a', 'p1', { owner: 'rs-1' }));
    indexer.upsert(pod('a', 'p2', { owner: 'rs-2' }));
    indexer.upsert(pod('a', 'orphan'));
    assert.deepEqual(names(indexer.byIndex(CONTROLLER_UID_INDEX, 'rs-1')), ['p1']);
    assert.deepEqual(indexer.byIndex(CONTROLLER_UID_INDEX, 'not-controller'), []);
  });

  it('moves an object between buckets when its index values change, and drops empty buckets', () => {
    const indexer = newIndexer({ byNode });
    indexer.upsert(pod('a', 'p1', { node: 'n1', owner: 'rs-1' }));
    indexer.upsert(pod('a', 'p1', { node: 'n2' }));
    assert.deepEqual(indexer.byIndex('byNode', 'n1'), []);
    assert.deepEqual(names(indexer.byIndex('byNode', 'n2')), ['p1']);
    assert.deepEqual(indexer.byIndex(CONTROLLER_UID_INDEX, 'rs-1'), []);
    assert.equal(indexer.byIndex('byNode', 'n2')[0]?.metadata.name, 'p1');
  });

  it('removes an object from every index', () => {
    const indexer = newIndexer({ byNode });
    indexer.upsert(pod('a', 'p1', { node: 'n1' }));
    assert.equal(indexer.remove('a/p1')?.metadata.name, 'p1');
    assert.equal(indexer.remove('a/p1'), undefined);
    assert.deepEqual(indexer.byIndex('byNode', 'n1'), []);
    assert.deepEqual(indexer.byIndex(NAMESPACE_INDEX, 'a'), []);
    assert.equal(indexer.size, 0);
  });

  it('indexes existing objects when an index is added later', () => {
    const indexer = newIndexer();
    indexer.upsert(pod('a', 'p1', { node: 'n1' }));
    indexer.addIndexers({ byNode });
    assert.deepEqual(names(indexer.byIndex('byNode', 'n1')), ['p1']);
    indexer.upsert(pod('a', 'p2', { node: 'n1' }));
    assert.deepEqual(names(indexer.byIndex('byNode', 'n1')), ['p1', 'p2']);
  });

  it('accepts the same index function twice, rejects a different one under a taken name', () => {
    const indexer = newIndexer({ byNode });
    indexer.addIndexers({ byNode });
    assert.throws(() => indexer.addIndexers({ byNode: () => [] }), /already has a different index named "byNode"/);
    assert.throws(() => indexer.addIndexers({ [NAMESPACE_INDEX]: () => [] }), /namespace/);
  });

  it('throws for an index never added', () => {
    assert.throws(() => newIndexer().byIndex('nope', 'x'), /no index named "nope"/);
  });

  it('indexes an object once per distinct value', () => {
    const indexer = newIndexer({ tags: () => ['x', 'x', 'y'] });
    indexer.upsert(pod('a', 'p1'));
    assert.equal(indexer.byIndex('tags', 'x').length, 1);
    assert.equal(indexer.byIndex('tags', 'y').length, 1);
  });

  it('replaceAll swaps the content and returns the previous one', () => {
    const indexer = newIndexer({ byNode });
    indexer.upsert(pod('a', 'p1', { node: 'n1' }));
    const previous = indexer.replaceAll([pod('a', 'p2', { node: 'n2' })]);
    assert.deepEqual([...previous.keys()], ['a/p1']);
    assert.deepEqual(indexer.keys(), ['a/p2']);
    assert.deepEqual(indexer.byIndex('byNode', 'n1'), []);
    assert.deepEqual(names(indexer.byIndex('byNode', 'n2')), ['p2']);
  });
});
