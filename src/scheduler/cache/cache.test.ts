import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { NodeInfo } from '../framework/node-info.js';
import type { Node, Pod } from '../framework/types.js';
import { newSchedulerCache, newSnapshotOf, type Cache } from './cache.js';
import type { Snapshot } from './interface.js';
import type { CacheSnapshot } from './snapshot.js';

interface NodeOptions {
  zone?: string;
  images?: Array<{ names: string[]; sizeBytes?: number }>;
  cpu?: string;
  labels?: Record<string, string>;
}

function makeNode(name: string, o: NodeOptions = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { ...(o.zone === undefined ? {} : { 'topology.kubernetes.io/zone': o.zone }), ...o.labels } },
    status: { allocatable: { cpu: o.cpu ?? '4', memory: '8Gi', pods: '110' }, ...(o.images === undefined ? {} : { images: o.images }) },
  };
}

interface PodOptions {
  cpu?: string;
  antiAffinity?: boolean;
  hostPort?: number;
}

function makePod(name: string, nodeName: string, o: PodOptions = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: name } },
    spec: {
      nodeName,
      containers: [
        {
          name: 'c',
          resources: { requests: { cpu: o.cpu ?? '100m' } },
          ...(o.hostPort === undefined ? {} : { ports: [{ containerPort: 80, hostPort: o.hostPort }] }),
        },
      ],
      ...(o.antiAffinity === true
        ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: name } }, topologyKey: 'kubernetes.io/hostname' }] } } }
        : {}),
    },
  };
}

const names = (infos: readonly NodeInfo[]): string[] => infos.map((n) => n.name);

/** Counts NodeInfo.clone calls: the snapshot's copying. */
let clones = 0;
const originalClone = NodeInfo.prototype.clone;
beforeEach(() => {
  clones = 0;
  NodeInfo.prototype.clone = function countingClone(this: NodeInfo): NodeInfo {
    clones++;
    return originalClone.call(this);
  };
});
afterEach(() => {
  NodeInfo.prototype.clone = originalClone;
});

function fresh(cache: Cache): Snapshot {
  const s = cache.newSnapshot();
  cache.updateSnapshot(s);
  return s;
}

describe('SchedulerCache assumed pods', () => {
  it('assumes a pod onto its node, confirms it on add, and counts it once', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    const pod = makePod('a', 'n1', { cpu: '500m' });
    cache.assumePod(pod);
    assert.ok(cache.isAssumedPod(pod));
    assert.equal(cache.getNodeInfo('n1')?.requested.milliCPU, 500);
    cache.finishBinding(pod);
    assert.ok(cache.isBindingFinished(pod));
    cache.addPod(pod);
    assert.ok(!cache.isAssumedPod(pod));
    assert.equal(cache.podCount(), 1);
    assert.equal(cache.getNodeInfo('n1')?.pods.length, 1);
    assert.equal(cache.getNodeInfo('n1')?.requested.milliCPU, 500);
    assert.throws(() => cache.forgetPod(pod), /wasn't assumed so cannot be forgotten/);
    assert.throws(() => cache.assumePod(pod), /is in the cache, so can't be assumed/);
  });

  it('forgets an assumed pod whose binding failed', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    const pod = makePod('a', 'n1', { hostPort: 8080 });
    cache.assumePod(pod);
    assert.equal(cache.getNodeInfo('n1')?.usedPorts.size, 1);
    assert.throws(() => cache.forgetPod(makePod('a', 'n2')), /was assumed on n2 but assigned to n1/);
    cache.forgetPod(pod);
    assert.ok(!cache.isAssumedPod(pod));
    assert.equal(cache.podCount(), 0);
    assert.equal(cache.getNodeInfo('n1')?.pods.length, 0);
    assert.equal(cache.getNodeInfo('n1')?.usedPorts.size, 0);
    assert.throws(() => cache.forgetPod(pod), /wasn't assumed/);
  });

  it('refuses to assume a pod without a node', () => {
    const cache = newSchedulerCache();
    assert.throws(() => cache.assumePod(makePod('a', '')), /has no spec.nodeName/);
  });

  it('moves an assumed pod that the informer reports bound to another node', () => {
    const warnings: string[] = [];
    const logger = { warn: (_fields: unknown, message: string) => warnings.push(message) };
    const cache = newSchedulerCache({ logger: logger as never });
    cache.addNode(makeNode('n1'));
    cache.addNode(makeNode('n2'));
    cache.assumePod(makePod('a', 'n1', { cpu: '1' }));
    cache.addPod(makePod('a', 'n2', { cpu: '1' }));
    assert.equal(cache.getNodeInfo('n1')?.pods.length, 0);
    assert.equal(cache.getNodeInfo('n2')?.requested.milliCPU, 1000);
    assert.deepEqual(warnings, ['pod was added to a different node than it was assumed']);
    assert.equal(cache.podCount(), 1);
  });

  it('an update of an assumed pod confirms it', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    const pod = makePod('a', 'n1');
    cache.assumePod(pod);
    cache.updatePod(pod, pod);
    assert.ok(!cache.isAssumedPod(pod));
    assert.equal(cache.getNodeInfo('n1')?.pods.length, 1);
  });
});

describe('SchedulerCache informer events', () => {
  it('updates and removes pods, tolerating events out of order', () => {
    const warnings: string[] = [];
    const cache = newSchedulerCache({ logger: { warn: (_f: unknown, m: string) => warnings.push(m) } as never });
    cache.addNode(makeNode('n1'));
    cache.addPod(makePod('a', 'n1', { cpu: '1' }));
    cache.updatePod(makePod('a', 'n1', { cpu: '1' }), makePod('a', 'n1', { cpu: '2' }));
    assert.equal(cache.getNodeInfo('n1')?.requested.milliCPU, 2000);
    cache.addPod(makePod('a', 'n1', { cpu: '3' }));
    assert.equal(cache.getNodeInfo('n1')?.requested.milliCPU, 3000, 'a second add replaces');
    cache.removePod(makePod('a', 'n1'));
    assert.equal(cache.getNodeInfo('n1')?.pods.length, 0);
    cache.removePod(makePod('a', 'n1'));
    cache.updatePod(makePod('b', 'n1'), makePod('b', 'n1'));
    assert.equal(cache.getNodeInfo('n1')?.pods.length, 1, 'an update of an unknown pod adds it');
    cache.removeNode(makeNode('ghost'));
    assert.deepEqual(warnings, [
      'pod was already in added state',
      'pod is not found in scheduler cache, so cannot be removed from it',
      'pod is not added to scheduler cache, so cannot be updated; adding it',
      'node is not found in scheduler cache, so cannot be removed from it',
    ]);
  });

  it('works without a logger', () => {
    const cache = newSchedulerCache();
    cache.removePod(makePod('a', 'n1'));
    cache.removeNode(makeNode('n1'));
    assert.equal(cache.podCount(), 0);
  });

  it('keeps pods that arrive before their node, and shows the node once it comes', () => {
    const cache = newSchedulerCache();
    const snapshot = cache.newSnapshot();
    cache.addPod(makePod('early', 'n9', { cpu: '1' }));
    assert.equal(cache.getNodeInfo('n9')?.node, undefined);
    assert.equal(cache.nodeCount(), 1);
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.numNodes, 0);
    assert.equal(snapshot.nodeInfos().get('n9'), undefined);
    cache.addNode(makeNode('n9'));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.numNodes, 1);
    assert.equal(snapshot.nodeInfos().get('n9')?.requested.milliCPU, 1000);
  });

  it('keeps a removed node’s NodeInfo (without node) until its pods go', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    cache.addNode(makeNode('n2'));
    cache.addPod(makePod('a', 'n1'));
    const snapshot = fresh(cache);
    assert.equal(snapshot.numNodes, 2);
    cache.removeNode(makeNode('n1'));
    assert.ok(cache.getNodeInfo('n1'));
    assert.equal(cache.getNodeInfo('n1')?.node, undefined);
    assert.equal(cache.nodeCount(), 2);
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(snapshot.nodeInfos().list()), ['n2']);
    assert.equal(snapshot.nodeInfos().get('n1'), undefined);
    cache.removePod(makePod('a', 'n1'));
    assert.equal(cache.getNodeInfo('n1'), undefined);
    assert.equal(cache.nodeCount(), 1);
    cache.removeNode(makeNode('n2'));
    assert.equal(cache.nodeCount(), 0);
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.numNodes, 0);
  });

  it('updates a node in place (allocatable) and moves it when its zone changes', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('a1', { zone: 'a' }));
    cache.addNode(makeNode('a2', { zone: 'a' }));
    cache.addNode(makeNode('b1', { zone: 'b' }));
    const snapshot = fresh(cache);
    assert.deepEqual(names(snapshot.nodeInfos().list()), ['a1', 'b1', 'a2']);
    const list = snapshot.nodeInfos().list();
    cache.updateNode(makeNode('a1', { zone: 'a' }), makeNode('a1', { zone: 'a', cpu: '8' }));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfos().list(), list, 'no list rebuild for an allocatable change');
    assert.equal(snapshot.nodeInfos().get('a1')?.allocatable.milliCPU, 8000);
    cache.updateNode(makeNode('a1', { zone: 'a' }), makeNode('a1', { zone: 'b', cpu: '8' }));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(snapshot.nodeInfos().list()), ['a2', 'b1', 'a1']);
    cache.addNode(makeNode('a2', { zone: 'a', cpu: '2' }));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.numNodes, 3, 'a second add of a node is an update');
    assert.equal(snapshot.nodeInfos().get('a2')?.allocatable.milliCPU, 2000);
  });

  it('shows a node removed and added again between two cycles', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    cache.addNode(makeNode('n2'));
    const snapshot = fresh(cache);
    cache.removeNode(makeNode('n1'));
    cache.addNode(makeNode('n3'));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(snapshot.nodeInfos().list()).sort(), ['n2', 'n3']);
    assert.equal(snapshot.nodeInfos().get('n1'), undefined);
    cache.removeNode(makeNode('n2'));
    cache.addNode(makeNode('n2', { cpu: '16' }));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.nodeInfos().get('n2')?.allocatable.milliCPU, 16_000);
    assert.equal(snapshot.numNodes, 2);
  });
});

describe('SchedulerCache snapshots', () => {
  it('copies only the nodes that changed since the last update', () => {
    const cache = newSchedulerCache();
    for (let i = 0; i < 100; i++) cache.addNode(makeNode(`n${i}`, { zone: `z${i % 3}` }));
    const snapshot = cache.newSnapshot();
    assert.equal(snapshot.numNodes, 0);
    cache.updateSnapshot(snapshot);
    assert.equal(clones, 100);
    assert.equal(snapshot.numNodes, 100);
    const list = snapshot.nodeInfos().list();
    const before = snapshot.nodeInfos().get('n5');

    clones = 0;
    cache.updateSnapshot(snapshot);
    assert.equal(clones, 0, 'nothing changed');

    cache.assumePod(makePod('a', 'n5', { cpu: '1' }));
    assert.equal(snapshot.nodeInfos().get('n5')?.pods.length, 0, 'the snapshot does not see the cache change before the update');
    cache.updateSnapshot(snapshot);
    assert.equal(clones, 1);
    assert.equal(snapshot.nodeInfos().list(), list, 'same list');
    assert.equal(snapshot.nodeInfos().get('n5'), before, 'same object, refreshed');
    assert.equal(before?.pods.length, 1);
    assert.equal(before?.requested.milliCPU, 1000);
    assert.equal(before?.generation, cache.getNodeInfo('n5')?.generation);

    clones = 0;
    cache.addPod(makePod('b', 'n7'));
    cache.addPod(makePod('c', 'n7'));
    cache.removePod(makePod('a', 'n5'));
    cache.updateSnapshot(snapshot);
    assert.equal(clones, 2);
    assert.equal(snapshot.nodeInfos().get('n5')?.pods.length, 0);
    assert.equal(snapshot.nodeInfos().get('n7')?.pods.length, 2);
  });

  it('the snapshot holds copies: cache changes do not leak into it', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    const snapshot = fresh(cache);
    const info = snapshot.nodeInfos().get('n1')!;
    cache.addPod(makePod('a', 'n1', { hostPort: 80 }));
    assert.equal(info.pods.length, 0);
    assert.equal(info.usedPorts.size, 0);
    assert.equal(info.requested.milliCPU, 0);
    assert.notEqual(info, cache.getNodeInfo('n1'));
  });

  it('keeps the affinity lists up to date', () => {
    const cache = newSchedulerCache();
    for (const n of ['n1', 'n2', 'n3']) cache.addNode(makeNode(n));
    const snapshot = fresh(cache);
    assert.deepEqual(snapshot.nodeInfos().havePodsWithRequiredAntiAffinityList(), []);
    cache.assumePod(makePod('anti', 'n2', { antiAffinity: true }));
    cache.addPod(makePod('plain', 'n3'));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(snapshot.nodeInfos().havePodsWithRequiredAntiAffinityList()), ['n2']);
    assert.deepEqual(names(snapshot.nodeInfos().havePodsWithAffinityList()), ['n2']);
    cache.forgetPod(makePod('anti', 'n2', { antiAffinity: true }));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(snapshot.nodeInfos().havePodsWithRequiredAntiAffinityList(), []);
    assert.deepEqual(snapshot.nodeInfos().havePodsWithAffinityList(), []);
  });

  it('tells which NodeInfos changed since an earlier generation, until nodes come or go', () => {
    const cache = newSchedulerCache();
    for (const n of ['n1', 'n2', 'n3']) cache.addNode(makeNode(n));
    const snapshot = fresh(cache) as CacheSnapshot;
    assert.equal(snapshot.changedSince(-1).changed, undefined, 'no earlier answer: walk everything');
    const g0 = snapshot.changedSince(-1).generation;
    assert.deepEqual(snapshot.changedSince(g0).changed, []);
    cache.addPod(makePod('a', 'n2'));
    cache.updateSnapshot(snapshot);
    const after1 = snapshot.changedSince(g0);
    assert.deepEqual(names(after1.changed!), ['n2']);
    assert.equal(after1.changed![0], snapshot.get('n2'), 'the snapshot\'s own NodeInfo');
    cache.addPod(makePod('b', 'n3'));
    cache.updateSnapshot(snapshot);
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names([...snapshot.changedSince(g0).changed!]).sort(), ['n2', 'n3'], 'over several updates');
    assert.deepEqual(names(snapshot.changedSince(after1.generation).changed!), ['n3']);
    assert.equal(snapshot.changedSince(snapshot.generation + 5).changed, undefined, 'a generation from elsewhere');
    const g2 = snapshot.generation;
    cache.addNode(makeNode('n4'));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.changedSince(g2).changed, undefined, 'a node came: walk everything');
    const g3 = snapshot.generation;
    cache.removeNode(makeNode('n1'));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.changedSince(g3).changed, undefined, 'a node went: walk everything');
  });

  it('forgets changes beyond its log: an old generation gets a full walk', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1'));
    const snapshot = fresh(cache) as CacheSnapshot;
    const old = snapshot.generation;
    for (let i = 0; i < 300; i++) {
      cache.addPod(makePod(`p${i}`, 'n1'));
      cache.updateSnapshot(snapshot);
    }
    assert.equal(snapshot.changedSince(old).changed, undefined);
    const recent = snapshot.generation;
    cache.addPod(makePod('last', 'n1'));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(snapshot.changedSince(recent).changed!), ['n1']);
  });

  it('patches the affinity lists without rebuilding them, and never changes a list handed out', () => {
    const cache = newSchedulerCache();
    for (const n of ['n1', 'n2', 'n3']) cache.addNode(makeNode(n));
    const snapshot = fresh(cache);
    cache.addPod(makePod('anti1', 'n3', { antiAffinity: true }));
    cache.updateSnapshot(snapshot);
    const before = snapshot.havePodsWithRequiredAntiAffinityList();
    cache.addPod(makePod('anti2', 'n1', { antiAffinity: true }));
    cache.addPod(makePod('anti3', 'n3', { antiAffinity: true }));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(before), ['n3']);
    assert.deepEqual(names([...snapshot.havePodsWithRequiredAntiAffinityList()]).sort(), ['n1', 'n3']);
    cache.removePod(makePod('anti1', 'n3', { antiAffinity: true }));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names([...snapshot.havePodsWithRequiredAntiAffinityList()]).sort(), ['n1', 'n3'], 'n3 still holds anti3');
    cache.removePod(makePod('anti3', 'n3', { antiAffinity: true }));
    cache.updateSnapshot(snapshot);
    assert.deepEqual(names(snapshot.havePodsWithRequiredAntiAffinityList()), ['n1']);
    assert.deepEqual(names(snapshot.havePodsWithAffinityList()), ['n1']);
  });

  it('refuses a snapshot it did not make', () => {
    const cache = newSchedulerCache();
    const foreign = { numNodes: 0, generation: 0 } as unknown as Snapshot;
    assert.throws(() => cache.updateSnapshot(foreign), /needs a snapshot made by newSnapshot/);
  });

  it('at 5,000 nodes and 10,000 pods, a cycle after one assumed pod copies one NodeInfo', () => {
    const cache = newSchedulerCache();
    for (let i = 0; i < 5000; i++) cache.addNode(makeNode(`n${i}`, { zone: `z${i % 3}` }));
    for (let i = 0; i < 10_000; i++) cache.addPod(makePod(`p${i}`, `n${i % 5000}`));
    const snapshot = fresh(cache);
    assert.equal(snapshot.numNodes, 5000);
    assert.equal(cache.podCount(), 10_000);
    clones = 0;
    cache.assumePod(makePod('new', 'n1234'));
    cache.updateSnapshot(snapshot);
    assert.equal(clones, 1);
    assert.equal(snapshot.nodeInfos().get('n1234')?.pods.length, 3);
  });
});

describe('SchedulerCache image states', () => {
  const nginx = { names: ['docker.io/library/nginx:1.27', 'nginx:1.27'], sizeBytes: 50_000_000 };
  const redis = { names: ['redis:7'], sizeBytes: 30_000_000 };

  it('counts on how many nodes each image is, as the snapshot sees it', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1', { images: [nginx, redis] }));
    cache.addNode(makeNode('n2', { images: [nginx] }));
    const snapshot = fresh(cache);
    const n1 = snapshot.nodeInfos().get('n1')!;
    assert.deepEqual(n1.imageStates.get('nginx:1.27'), { size: 50_000_000, numNodes: 2 });
    assert.deepEqual(n1.imageStates.get('docker.io/library/nginx:1.27'), { size: 50_000_000, numNodes: 2 });
    assert.deepEqual(n1.imageStates.get('redis:7'), { size: 30_000_000, numNodes: 1 });
    assert.equal(snapshot.nodeInfos().get('n2')?.imageStates.get('redis:7'), undefined);

    clones = 0;
    cache.addNode(makeNode('n3', { images: [nginx, redis] }));
    cache.updateSnapshot(snapshot);
    assert.equal(clones, 1, 'only the new node is copied');
    assert.equal(n1.imageStates.get('nginx:1.27')?.numNodes, 3);
    assert.equal(n1.imageStates.get('redis:7')?.numNodes, 2);

    cache.removeNode(makeNode('n2'));
    cache.updateNode(makeNode('n3', { images: [nginx, redis] }), makeNode('n3', { images: [redis] }));
    cache.updateSnapshot(snapshot);
    assert.equal(n1.imageStates.get('nginx:1.27')?.numNodes, 1);
    assert.equal(snapshot.nodeInfos().get('n3')?.imageStates.get('nginx:1.27'), undefined);
    assert.equal(cache.imageNodes('nginx:1.27')?.size, 1);
  });

  it('a cycle never sees image counts change under it', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1', { images: [nginx] }));
    const snapshot = fresh(cache);
    cache.addNode(makeNode('n2', { images: [nginx] }));
    assert.equal(snapshot.nodeInfos().get('n1')?.imageStates.get('nginx:1.27')?.numNodes, 1);
    assert.equal(cache.getNodeInfo('n1')?.imageStates.get('nginx:1.27')?.numNodes, 2, 'the cache itself is current');
  });

  it('forgets an image no node has any more', () => {
    const cache = newSchedulerCache();
    cache.addNode(makeNode('n1', { images: [redis] }));
    const snapshot = fresh(cache) as CacheSnapshot;
    assert.ok(snapshot.imageSummaries.has('redis:7'));
    cache.removeNode(makeNode('n1'));
    cache.updateSnapshot(snapshot);
    assert.equal(snapshot.imageSummaries.has('redis:7'), false);
    assert.equal(cache.imageNodes('redis:7'), undefined);
  });
});

describe('newSnapshotOf', () => {
  it('builds a snapshot of pods and nodes for plugin tests', () => {
    const snapshot = newSnapshotOf([makePod('a', 'n1', { cpu: '1' }), makePod('b', 'n1'), makePod('pending', '')], [makeNode('n1', { zone: 'a' }), makeNode('n2', { zone: 'b' })]);
    assert.equal(snapshot.numNodes, 2);
    assert.equal(snapshot.get('n1')?.pods.length, 2);
    assert.equal(snapshot.get('n1')?.requested.milliCPU, 1100);
    assert.deepEqual(names(snapshot.list()), ['n1', 'n2']);
  });
});
