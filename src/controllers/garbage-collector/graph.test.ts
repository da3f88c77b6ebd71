import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectMeta, OwnerReference } from '../../machinery/meta.js';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { alternateOwnerIdentity, DependencyGraph, referenceDiffs, type GraphNode } from './graph.js';
import type { ObjectIdentity } from './identity.js';

interface Recorded {
  deletes: string[];
  orphans: string[];
  invalid: { dependent: string; owner: string }[];
}

function newGraph(): { graph: DependencyGraph; seen: Recorded; absent: AbsentOwnerCache } {
  const seen: Recorded = { deletes: [], orphans: [], invalid: [] };
  const absent = new AbsentOwnerCache(10);
  const graph = new DependencyGraph(
    {
      attemptToDelete: (n: GraphNode) => seen.deletes.push(n.identity.name),
      attemptToOrphan: (n: GraphNode) => seen.orphans.push(n.identity.name),
      invalidNamespaceOwnerRef: (d: GraphNode, ref: OwnerReference) => seen.invalid.push({ dependent: d.identity.name, owner: ref.name }),
    },
    absent,
  );
  return { graph, seen, absent };
}

const rs = (name: string, uid: string, namespace = 'default'): ObjectIdentity => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid, namespace });
const pod = (name: string, uid: string, namespace = 'default'): ObjectIdentity => ({ apiVersion: 'v1', kind: 'Pod', name, uid, namespace });
const ref = (owner: ObjectIdentity, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.name,
  uid: owner.uid,
  ...extra,
});
const meta = (i: ObjectIdentity, extra: ObjectMeta = {}): ObjectMeta => ({ name: i.name, uid: i.uid, namespace: i.namespace, ...extra });

describe('DependencyGraph', () => {
  it('an owner seen only through a dependent is a virtual node queued for verification, observed once its informer shows it', () => {
    const { graph, seen } = newGraph();
    const owner = rs('web', 'rs-1');
    graph.observe('add', pod('web-a', 'p-1'), meta(pod('web-a', 'p-1'), { ownerReferences: [ref(owner)] }));
    assert.equal(graph.get('rs-1')?.virtual, true);
    assert.deepEqual(seen.deletes, ['web']);
    graph.observe('add', owner, meta(owner));
    assert.equal(graph.get('rs-1')?.virtual, false);
    assert.deepEqual([...graph.get('rs-1')!.dependents].map((d) => d.identity.name), ['web-a']);
    assert.deepEqual(seen.deletes, ['web']);
  });

  it('a deleted owner queues its dependents and is remembered absent', () => {
    const { graph, seen, absent } = newGraph();
    const owner = rs('web', 'rs-1');
    graph.observe('add', owner, meta(owner));
    graph.observe('add', pod('a', 'p-1'), meta(pod('a', 'p-1'), { ownerReferences: [ref(owner)] }));
    graph.observe('add', pod('b', 'p-2'), meta(pod('b', 'p-2'), { ownerReferences: [ref(owner)] }));
    graph.observe('delete', owner, meta(owner));
    assert.equal(graph.get('rs-1'), undefined);
    assert.deepEqual(seen.deletes.sort(), ['a', 'b']);
    assert.equal(absent.has(owner), true);
  });

  it('a dependent deleted while its owner deletes in the foreground queues the owner', () => {
    const { graph, seen } = newGraph();
    const owner = rs('web', 'rs-1');
    const p = pod('a', 'p-1');
    graph.observe('add', owner, meta(owner));
    graph.observe('add', p, meta(p, { ownerReferences: [ref(owner, { blockOwnerDeletion: true })] }));
    graph.observe('update', owner, meta(owner, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }), meta(owner));
    assert.equal(graph.get('rs-1')?.deletingDependents, true);
    assert.deepEqual(seen.deletes, ['a', 'web']);
    assert.deepEqual(graph.get('rs-1')!.blockingDependents().map((d) => d.identity.name), ['a']);
    seen.deletes.length = 0;
    graph.observe('delete', p, meta(p, { ownerReferences: [ref(owner, { blockOwnerDeletion: true })] }));
    assert.deepEqual(seen.deletes, ['web']);
    assert.deepEqual(graph.get('rs-1')!.blockingDependents(), []);
  });

  it('the orphan finalizer on a deleting owner queues it for orphaning, once', () => {
    const { graph, seen } = newGraph();
    const owner = rs('web', 'rs-1');
    graph.observe('add', owner, meta(owner));
    const orphaning = meta(owner, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['orphan'] });
    graph.observe('update', owner, orphaning, meta(owner));
    graph.observe('update', owner, orphaning, orphaning);
    assert.deepEqual(seen.orphans, ['web']);
    assert.equal(graph.get('rs-1')?.beingDeleted, true);
  });

  it('an object first seen already deleting with foregroundDeletion is marked so', () => {
    const { graph, seen } = newGraph();
    const owner = rs('web', 'rs-1');
    graph.observe('add', owner, meta(owner, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }));
    assert.equal(graph.get('rs-1')?.deletingDependents, true);
    assert.deepEqual(seen.deletes, ['web']);
  });

  it('removing or unblocking a blocking reference queues the owner; adding a reference links the new owner', () => {
    const { graph, seen } = newGraph();
    const a = rs('a', 'rs-a');
    const b = rs('b', 'rs-b');
    const p = pod('p', 'p-1');
    graph.observe('add', a, meta(a));
    graph.observe('add', b, meta(b));
    const before = meta(p, { ownerReferences: [ref(a, { blockOwnerDeletion: true }), ref(b, { blockOwnerDeletion: true })] });
    graph.observe('add', p, before);
    const after = meta(p, { ownerReferences: [ref(b, { blockOwnerDeletion: false })] });
    graph.observe('update', p, after, before);
    assert.deepEqual(seen.deletes.sort(), ['a', 'b']);
    assert.equal(graph.get('rs-a')!.dependents.size, 0);
    assert.equal(graph.get('rs-b')!.dependents.size, 1);
    const c = rs('c', 'rs-c');
    graph.observe('update', p, meta(p, { ownerReferences: [ref(b), ref(c)] }), after);
    assert.equal(graph.get('rs-c')?.virtual, true);
    assert.equal(graph.get('rs-c')!.dependents.size, 1);
  });

  it('a dependent naming an observed owner of another namespace gets an OwnerRefInvalidNamespace report and a look', () => {
    const { graph, seen } = newGraph();
    const owner = rs('web', 'rs-1', 'ns-a');
    graph.observe('add', owner, meta(owner));
    const p = pod('p', 'p-1', 'ns-b');
    graph.observe('add', p, meta(p, { ownerReferences: [ref(owner)] }));
    assert.deepEqual(seen.invalid, [{ dependent: 'p', owner: 'web' }]);
    assert.deepEqual(seen.deletes, ['p']);
  });

  it('a dependent seen before its owner of another namespace is reported when the owner is observed', () => {
    const { graph, seen } = newGraph();
    const owner = rs('web', 'rs-1', 'ns-a');
    const p = pod('p', 'p-1', 'ns-b');
    graph.observe('add', p, meta(p, { ownerReferences: [ref(owner)] }));
    assert.equal(graph.get('rs-1')?.identity.namespace, 'ns-b');
    seen.deletes.length = 0;
    graph.observe('add', owner, meta(owner));
    assert.deepEqual(seen.invalid, [{ dependent: 'p', owner: 'web' }]);
    assert.deepEqual(seen.deletes, ['p']);
    assert.equal(graph.get('rs-1')?.identity.namespace, 'ns-a');
  });

  it('a virtual delete drops a virtual owner and queues its dependents', () => {
    const { graph, seen, absent } = newGraph();
    const owner = rs('gone', 'rs-x');
    graph.observe('add', pod('a', 'p-1'), meta(pod('a', 'p-1'), { ownerReferences: [ref(owner)] }));
    seen.deletes.length = 0;
    graph.virtualDelete(owner);
    assert.equal(graph.get('rs-x'), undefined);
    assert.deepEqual(seen.deletes, ['a']);
    assert.equal(absent.has(owner), true);
    graph.virtualDelete(owner);
  });

  it('a virtual delete with other coordinates than an observed node only releases the dependents naming those', () => {
    const { graph, seen, absent } = newGraph();
    const owner = rs('web', 'rs-1');
    graph.observe('add', owner, meta(owner));
    const wrongName = { ...owner, name: 'other' };
    graph.observe('add', pod('a', 'p-1'), meta(pod('a', 'p-1'), { ownerReferences: [ref(wrongName)] }));
    graph.observe('add', pod('b', 'p-2'), meta(pod('b', 'p-2'), { ownerReferences: [ref(owner)] }));
    seen.deletes.length = 0;
    graph.virtualDelete(wrongName);
    assert.notEqual(graph.get('rs-1'), undefined);
    assert.deepEqual(seen.deletes, ['a']);
    assert.equal(absent.has(wrongName), true);
  });

  it('a virtual owner named two ways takes the other identity when one is verified absent', () => {
    const { graph, seen } = newGraph();
    const first = rs('one', 'rs-x');
    const second = rs('two', 'rs-x');
    graph.observe('add', pod('a', 'p-1'), meta(pod('a', 'p-1'), { ownerReferences: [ref(first)] }));
    graph.observe('add', pod('b', 'p-2'), meta(pod('b', 'p-2'), { ownerReferences: [ref(second)] }));
    seen.deletes.length = 0;
    graph.virtualDelete(first);
    assert.equal(graph.get('rs-x')?.identity.name, 'two');
    assert.deepEqual(seen.deletes, ['a', 'two']);
  });

  it('alternateOwnerIdentity cycles through the identities after the absent one, and has none when all agree', () => {
    const { graph } = newGraph();
    const a = rs('a', 'rs-x');
    graph.observe('add', pod('p', 'p-1'), meta(pod('p', 'p-1'), { ownerReferences: [ref(a)] }));
    graph.observe('add', pod('q', 'p-2'), meta(pod('q', 'p-2'), { ownerReferences: [ref(rs('b', 'rs-x'))] }));
    graph.observe('add', pod('r', 'p-3'), meta(pod('r', 'p-3'), { ownerReferences: [ref(rs('c', 'rs-x'))] }));
    const deps = graph.get('rs-x')!.dependents;
    assert.equal(alternateOwnerIdentity(deps, rs('b', 'rs-x'))?.name, 'c');
    assert.equal(alternateOwnerIdentity(deps, rs('c', 'rs-x'))?.name, 'a');
    const { graph: other } = newGraph();
    other.observe('add', pod('p', 'p-1'), meta(pod('p', 'p-1'), { ownerReferences: [ref(a)] }));
    assert.equal(alternateOwnerIdentity(other.get('rs-x')!.dependents, a), undefined);
  });

  it('a delete event for an unknown uid changes nothing', () => {
    const { graph, seen } = newGraph();
    graph.observe('delete', pod('x', 'p-9'), meta(pod('x', 'p-9')));
    assert.equal(graph.size, 0);
    assert.deepEqual(seen.deletes, []);
  });
});

describe('referenceDiffs', () => {
  it('finds added, removed and changed references by uid', () => {
    const a = ref(rs('a', '1'));
    const b = ref(rs('b', '2'));
    const c = ref(rs('c', '3'));
    const diff = referenceDiffs([a, b], [{ ...b, controller: true }, c]);
    assert.deepEqual(diff.added, [c]);
    assert.deepEqual(diff.removed, [a]);
    assert.deepEqual(diff.changed, [{ oldRef: b, newRef: { ...b, controller: true } }]);
  });
});

describe('AbsentOwnerCache', () => {
  it('forgets the least recently used entry beyond its capacity', () => {
    const cache = new AbsentOwnerCache(2);
    cache.add(rs('a', '1'));
    cache.add(rs('b', '2'));
    assert.equal(cache.has(rs('a', '1')), true);
    cache.add(rs('c', '3'));
    assert.equal(cache.has(rs('b', '2')), false);
    assert.equal(cache.has(rs('a', '1')), true);
    assert.equal(cache.size, 2);
  });
});
