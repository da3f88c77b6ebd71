import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowsSurge, planManage } from './manage-plan.js';
import { planRollingUpdate, updateBudget } from './rolling-update-plan.js';
import { daemonSetCounts, statusUpToDate } from './status.js';
import { podsByNode, sortPodsOldestFirst } from './pods-by-node.js';
import { daemonPod, daemonSet, node } from './testing/fixtures.js';
import type { PodObject } from './types.js';

const now = new Date('2026-01-01T01:00:00Z');
const group = (pods: PodObject[]) => podsByNode(pods);
const surging = () => daemonSet({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } } });

describe('DaemonSet core loop plan', () => {
  it('creates a pod on each eligible node without one, and none on a tainted node', () => {
    const nodes = [node('a'), node('b'), node('c', { taints: [{ key: 'x', effect: 'NoSchedule' }] })];
    const plan = planManage({ ds: daemonSet(), nodes, podsByNode: group([daemonPod('p-a', 'a')]), hash: 'h1', now });
    assert.deepEqual(plan.nodesNeedingPods, ['b']);
    assert.deepEqual(plan.podsToDelete, []);
  });

  it('deletes pods from nodes that no longer fit, and unscheduled pods of vanished nodes', () => {
    const nodes = [node('a', { taints: [{ key: 'x', effect: 'NoExecute' }] })];
    const pods = [daemonPod('p-a', 'a'), daemonPod('p-gone', 'gone', { bound: false }), daemonPod('p-gone-bound', 'gone2'), daemonPod('p-dying', 'a', { deleting: true })];
    const plan = planManage({ ds: daemonSet(), nodes, podsByNode: group(pods), hash: 'h1', now });
    assert.deepEqual(plan.podsToDelete.sort(), ['p-a', 'p-gone']);
  });

  it('keeps the oldest of several pods on a node (no surge)', () => {
    const pods = [daemonPod('new', 'a', { created: '2026-01-01T00:05:00Z' }), daemonPod('old', 'a'), daemonPod('unbound', 'a', { bound: false })];
    const plan = planManage({ ds: daemonSet(), nodes: [node('a')], podsByNode: group(pods), hash: 'h1', now });
    assert.deepEqual(plan.podsToDelete.sort(), ['new', 'unbound']);
    assert.deepEqual(sortPodsOldestFirst(pods).map((p) => p.metadata.name), ['old', 'new', 'unbound']);
  });

  it('deletes failed pods with a Warning unless the node is in backoff, and succeeded pods with a Normal event', () => {
    const pods = [daemonPod('f', 'a', { phase: 'Failed' }), daemonPod('s', 'b', { phase: 'Succeeded' }), daemonPod('f2', 'c', { phase: 'Failed' })];
    const plan = planManage({
      ds: daemonSet(),
      nodes: [node('a'), node('b'), node('c')],
      podsByNode: group(pods),
      hash: 'h1',
      now,
      failedPodBackoffMs: (n) => (n === 'c' ? 2000 : undefined),
    });
    assert.deepEqual(plan.podsToDelete, ['f', 's']);
    assert.deepEqual(plan.failedPodNodes, ['a']);
    assert.equal(plan.requeueAfterMs, 2000);
    assert.deepEqual(plan.events, [
      { type: 'Warning', reason: 'FailedDaemonPod', message: 'Found failed daemon pod ns/f on node a, will try to kill it' },
      { type: 'Normal', reason: 'SucceededDaemonPod', message: 'Found succeeded daemon pod ns/s on node b, will try to delete it' },
    ]);
  });

  it('with surge, keeps an old and a new pod until the new one is available', () => {
    const ds = surging();
    assert.equal(allowsSurge(ds), true);
    assert.equal(allowsSurge(daemonSet()), false);
    const waiting = group([daemonPod('old', 'a', { hash: 'h0' }), daemonPod('new', 'a', { hash: 'h1', ready: false })]);
    assert.deepEqual(planManage({ ds, nodes: [node('a')], podsByNode: waiting, hash: 'h1', now }).podsToDelete, []);
    const ready = group([daemonPod('old', 'a', { hash: 'h0' }), daemonPod('new', 'a', { hash: 'h1' }), daemonPod('new2', 'a', { hash: 'h1', created: '2026-01-01T00:09:00Z' })]);
    assert.deepEqual(planManage({ ds, nodes: [node('a')], podsByNode: ready, hash: 'h1', now }).podsToDelete.sort(), ['new2', 'old']);
    const none = group([daemonPod('dying', 'a', { deleting: true })]);
    assert.deepEqual(planManage({ ds, nodes: [node('a')], podsByNode: none, hash: 'h1', now }).nodesNeedingPods, ['a']);
  });
});

describe('DaemonSet rolling update plan', () => {
  const nodes = [node('a'), node('b'), node('c')];

  it('scales the budget against desired nodes, falling back to maxUnavailable 1', () => {
    assert.deepEqual(updateBudget(daemonSet(), nodes), { maxSurge: 0, maxUnavailable: 1, desiredNumberScheduled: 3 });
    const pct = daemonSet({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%', maxSurge: 0 } } } });
    assert.equal(updateBudget(pct, nodes).maxUnavailable, 2);
    const zero = daemonSet({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } } });
    assert.equal(updateBudget(zero, nodes).maxUnavailable, 1);
    assert.throws(() => updateBudget(daemonSet({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 'x' } } } }), nodes));
  });

  it('deletes one old available pod at a time (maxUnavailable 1)', () => {
    const pods = ['a', 'b', 'c'].map((n) => daemonPod(`p-${n}`, n, { hash: 'h0' }));
    const plan = planRollingUpdate({ ds: daemonSet(), nodes, podsByNode: group(pods), hash: 'h1', now });
    assert.equal(plan.podsToDelete.length, 1);
    assert.deepEqual(plan.nodesNeedingPods, []);
  });

  it('waits while a new pod is unavailable, and replaces unavailable old pods at once', () => {
    const waiting = [daemonPod('p-a', 'a', { hash: 'h1', ready: false }), daemonPod('p-b', 'b', { hash: 'h0' }), daemonPod('p-c', 'c', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: daemonSet(), nodes, podsByNode: group(waiting), hash: 'h1', now }).podsToDelete, []);
    const broken = [daemonPod('p-a', 'a', { hash: 'h0', ready: false }), daemonPod('p-b', 'b', { hash: 'h0', ready: false }), daemonPod('p-c', 'c', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: daemonSet(), nodes, podsByNode: group(broken), hash: 'h1', now }).podsToDelete.sort(), ['p-a', 'p-b']);
  });

  it('counts a node with no pod, or with two, as unavailable', () => {
    const pods = [daemonPod('p-b', 'b', { hash: 'h0' }), daemonPod('p-c', 'c', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: daemonSet(), nodes, podsByNode: group(pods), hash: 'h1', now }).podsToDelete, []);
    const two = [daemonPod('x1', 'a', { hash: 'h0' }), daemonPod('x2', 'a', { hash: 'h0' }), daemonPod('p-b', 'b', { hash: 'h0' }), daemonPod('p-c', 'c', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: daemonSet(), nodes, podsByNode: group(two), hash: 'h1', now }).podsToDelete, []);
  });

  it('honours minReadySeconds for availability', () => {
    const ds = daemonSet({ spec: { minReadySeconds: 3600 } });
    const pods = [daemonPod('p-a', 'a', { hash: 'h1', readySince: '2026-01-01T00:59:00Z' }), daemonPod('p-b', 'b', { hash: 'h0', readySince: '2025-12-31T00:00:00Z' }), daemonPod('p-c', 'c', { hash: 'h0', readySince: '2025-12-31T00:00:00Z' })];
    assert.deepEqual(planRollingUpdate({ ds, nodes, podsByNode: group(pods), hash: 'h1', now }).podsToDelete, []);
  });

  it('with surge, creates up to maxSurge new pods beside old ones and deletes old pods whose replacement is available', () => {
    const start = ['a', 'b', 'c'].map((n) => daemonPod(`p-${n}`, n, { hash: 'h0' }));
    assert.deepEqual(planRollingUpdate({ ds: surging(), nodes, podsByNode: group(start), hash: 'h1', now }), { podsToDelete: [], nodesNeedingPods: ['a'] });
    const surged = [...start, daemonPod('n-a', 'a', { hash: 'h1' }), daemonPod('n-b', 'b', { hash: 'h1', ready: false })];
    assert.deepEqual(planRollingUpdate({ ds: surging(), nodes, podsByNode: group(surged), hash: 'h1', now }), { podsToDelete: ['p-a'], nodesNeedingPods: [] });
    const unavailableOld = [daemonPod('p-a', 'a', { hash: 'h0', ready: false }), daemonPod('p-b', 'b', { hash: 'h0' }), daemonPod('p-c', 'c', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: surging(), nodes, podsByNode: group(unavailableOld), hash: 'h1', now }).nodesNeedingPods, ['a', 'b']);
  });

  it('with surge, removes pods from nodes that no longer fit only as others are available', () => {
    const fit = [node('a'), node('b', { taints: [{ key: 'x', effect: 'NoSchedule' }] })];
    const pods = [daemonPod('p-a', 'a', { hash: 'h1' }), daemonPod('p-b', 'b', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: surging(), nodes: fit, podsByNode: group(pods), hash: 'h1', now }).podsToDelete, ['p-b']);
    const notYet = [daemonPod('p-a', 'a', { hash: 'h1', ready: false }), daemonPod('p-b', 'b', { hash: 'h0' })];
    assert.deepEqual(planRollingUpdate({ ds: surging(), nodes: fit, podsByNode: group(notYet), hash: 'h1', now }).podsToDelete, []);
    const brokenOld = [daemonPod('p-a', 'a', { hash: 'h1' }), daemonPod('p-b', 'b', { hash: 'h0', ready: false })];
    assert.deepEqual(planRollingUpdate({ ds: surging(), nodes: fit, podsByNode: group(brokenOld), hash: 'h1', now }).podsToDelete, ['p-b']);
  });
});

describe('DaemonSet status', () => {
  it('counts desired, current, misscheduled, ready, updated, available and unavailable', () => {
    const nodes = [node('a'), node('b'), node('c'), node('d', { taints: [{ key: 'x', effect: 'NoSchedule' }] })];
    const pods = [
      daemonPod('p-a', 'a', { hash: 'h1' }),
      daemonPod('p-b', 'b', { hash: 'h0', ready: false }),
      daemonPod('p-d', 'd', { hash: 'h1' }),
    ];
    const counts = daemonSetCounts({ ds: daemonSet(), nodes, podsByNode: group(pods), hash: 'h1', now });
    assert.deepEqual(counts, {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 2,
      numberMisscheduled: 1,
      numberReady: 1,
      updatedNumberScheduled: 1,
      numberAvailable: 1,
      numberUnavailable: 2,
    });
    const ds = daemonSet();
    assert.equal(statusUpToDate(ds, counts), false);
    Object.assign(ds, { status: { ...counts, observedGeneration: 1 } });
    assert.equal(statusUpToDate(ds, counts), true);
    ds.metadata.generation = 2;
    assert.equal(statusUpToDate(ds, counts), false);
  });

  it('leaves out deleted terminal pods and pods naming no node', () => {
    const loose = daemonPod('loose', 'a', { bound: false });
    delete loose.spec!.affinity;
    const byNode = podsByNode([daemonPod('done', 'a', { phase: 'Succeeded', deleting: true }), loose, daemonPod('p', 'b')]);
    assert.deepEqual([...byNode.keys()], ['b']);
    assert.deepEqual([...podsByNode([daemonPod('done', 'a', { phase: 'Failed', deleting: true })], { includeDeletedTerminal: true }).keys()], ['a']);
  });
});
