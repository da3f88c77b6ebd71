import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventHandler, HandlerRegistration, Indexer, SharedIndexInformer } from '../client/cache/interfaces.js';
import type { KubeObject } from '../machinery/meta.js';
import { addAllEventHandlers, nodeSchedulingPropertiesChange } from './event-handlers.js';
import type { Node, Pod } from './framework/types.js';
import { WaitingPodImpl, WaitingPods } from './framework/waiting-pods.js';
import { FakeCache, FakeQueue } from './testing/fake-queue-cache.js';
import { makeNode, makePod, silentLogger } from './testing/fakes.js';

/** An informer whose handlers the test calls by hand. */
class HandInformer<T extends KubeObject> implements SharedIndexInformer<T> {
  handler: EventHandler<T> = {};
  readonly indexer = {} as Indexer<T>;
  readonly hasSynced = true;
  readonly synced = Promise.resolve();
  readonly lastSyncResourceVersion = '';
  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    this.handler = handler;
    return { remove: () => (this.handler = {}) };
  }
}

function wire() {
  const pods = new HandInformer<Pod>();
  const nodes = new HandInformer<Node>();
  const cache = new FakeCache();
  const queue = new FakeQueue();
  const waitingPods = new WaitingPods();
  addAllEventHandlers({ pods, nodes, cache, queue, waitingPods, logger: silentLogger, responsibleFor: (p) => (p.spec?.schedulerName ?? 'default-scheduler') === 'default-scheduler' });
  return { pods, nodes, cache, queue, waitingPods };
}

const withRv = (pod: Pod, rv: string, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({ ...pod, metadata: { ...pod.metadata, resourceVersion: rv }, spec: { ...pod.spec!, ...extra } });

describe('scheduler event handlers: pods', () => {
  it('queues pending pods of our profiles only, and caches assigned pods of any scheduler', () => {
    const w = wire();
    w.pods.handler.onAdd!(makePod('mine'), true);
    w.pods.handler.onAdd!(makePod('theirs', { schedulerName: 'other' }), true);
    w.pods.handler.onAdd!(makePod('running', { nodeName: 'n1', schedulerName: 'other' }), true);
    assert.deepEqual(w.queue.calls, ['add mine', 'assignedPodAdded running']);
    assert.deepEqual(w.cache.calls, ['addPod running']);
  });

  it('moves a pod that got bound from the queue to the cache', () => {
    const w = wire();
    const pod = makePod('p');
    w.pods.handler.onUpdate!(pod, withRv(pod, '2', { nodeName: 'n1' }));
    assert.deepEqual(w.queue.calls, ['delete p', 'assignedPodAdded p']);
    assert.deepEqual(w.cache.calls, ['addPod p']);
  });

  it('updates pending pods, but not for a same-resourceVersion resync or an assumed pod', () => {
    const w = wire();
    const pod = makePod('p');
    w.pods.handler.onUpdate!(pod, pod);
    w.pods.handler.onUpdate!(pod, withRv(pod, '2'));
    w.cache.assumePod(pod);
    w.pods.handler.onUpdate!(pod, withRv(pod, '3'));
    assert.deepEqual(w.queue.calls, ['update p']);
  });

  it('frees room when an assigned pod is deleted, and rejects a deleted pod that waits on Permit', async () => {
    const w = wire();
    w.pods.handler.onDelete!(makePod('gone', { nodeName: 'n1' }));
    assert.deepEqual(w.cache.calls, ['removePod gone']);
    assert.deepEqual(w.queue.moves.map((m) => m.label), ['AssignedPodDelete']);
    const waiting = makePod('waiting');
    const wp = new WaitingPodImpl(waiting, new Map([['Gate', 60_000]]));
    w.waitingPods.add(wp);
    w.pods.handler.onDelete!(waiting);
    assert.equal((await wp.done)?.message(), 'removed');
    assert.deepEqual(w.queue.moves.map((m) => m.label), ['AssignedPodDelete', 'AssignedPodDelete']);
    assert.deepEqual(w.queue.calls, ['delete waiting']);
  });

  it('updates an assigned pod in the cache', () => {
    const w = wire();
    const pod = makePod('p', { nodeName: 'n1' });
    w.pods.handler.onUpdate!(pod, withRv(pod, '2'));
    assert.deepEqual(w.cache.calls, ['updatePod p']);
    assert.deepEqual(w.queue.calls, ['assignedPodUpdated p']);
  });
});

describe('scheduler event handlers: nodes', () => {
  it('adds, updates and removes nodes, moving pods with the events of the change', () => {
    const w = wire();
    const n = makeNode('n1');
    w.nodes.handler.onAdd!(n, true);
    const tainted: Node = { ...n, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } };
    w.nodes.handler.onUpdate!(n, tainted);
    w.nodes.handler.onUpdate!(tainted, tainted);
    w.nodes.handler.onDelete!(tainted);
    assert.deepEqual(w.cache.calls, ['addNode n1', 'updateNode n1', 'updateNode n1', 'removeNode n1']);
    assert.deepEqual(w.queue.moves.map((m) => m.label), ['NodeAdd', 'NodeTaintChange', 'NodeDelete']);
  });

  it('computes the events of a node update as upstream', () => {
    const old: Node = { ...makeNode('n', { zone: 'a' }), status: { allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '1' }] } };
    const same: Node = { ...old, status: { allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2' }] } };
    assert.deepEqual(nodeSchedulingPropertiesChange(same, old), [], 'a heartbeat is no change');
    const changed: Node = {
      ...old,
      metadata: { ...old.metadata, labels: { zone: 'b' }, annotations: { a: '1' } },
      spec: { unschedulable: true },
      status: { allocatable: { cpu: '8' }, conditions: [{ type: 'Ready', status: 'False' }] },
    };
    assert.deepEqual(nodeSchedulingPropertiesChange(changed, old).map((e) => e.label), [
      'NodeSpecUnschedulableChange',
      'NodeAllocatableChange',
      'NodeLabelChange',
      'NodeConditionChange',
      'NodeAnnotationChange',
    ]);
  });
});
