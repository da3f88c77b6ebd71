import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerRevisionObject } from '../history/controller-revision.js';
import { planStatefulSet, statefulSetStatus, statusChanged, type PlanInput, type StatefulSetAction } from './plan.js';
import { member, statefulSet } from './testing/fixtures.js';
import type { PodObject, StatefulSetObject } from './types.js';

const r1: ControllerRevisionObject = { metadata: { name: 'web-r1' }, revision: 1 };
const r2: ControllerRevisionObject = { metadata: { name: 'web-r2' }, revision: 2 };
const now = new Date('2026-01-01T01:00:00Z');

function input(set: StatefulSetObject, pods: PodObject[], update = r1): PlanInput {
  return { set, currentSet: set, updateSet: set, currentRevision: r1, updateRevision: update, collisionCount: 0, pods, now };
}
const describeActions = (actions: StatefulSetAction[]) => actions.map((a) => `${a.kind} ${a.pod.metadata.name ?? ''}`);

describe('StatefulSet plan, OrderedReady', () => {
  it('creates the lowest missing ordinal, one at a time', () => {
    const set = statefulSet();
    assert.deepEqual(describeActions(planStatefulSet(input(set, [])).actions), ['create web-0']);
    assert.deepEqual(describeActions(planStatefulSet(input(set, [member(set, 0)])).actions), ['create web-1']);
  });

  it('waits while a predecessor is not Running and Ready, or terminating', () => {
    const set = statefulSet();
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0, { ready: false })])).actions, []);
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0, { phase: 'Pending', ready: false })])).actions, []);
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0, { deleting: true })])).actions, []);
  });

  it('starts at spec.ordinals.start', () => {
    const set = statefulSet({ ordinals: { start: 3 }, replicas: 2 });
    assert.deepEqual(describeActions(planStatefulSet(input(set, [])).actions), ['create web-3']);
  });

  it('scales down from the highest ordinal, one at a time, only when all replicas are healthy', () => {
    const set = statefulSet({ replicas: 1 });
    const pods = [member(set, 0), member(set, 1), member(set, 2)];
    assert.deepEqual(describeActions(planStatefulSet(input(set, pods)).actions), ['delete web-2']);
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0), member(set, 1), member(set, 2, { deleting: true })])).actions, []);
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0, { ready: false }), member(set, 1)])).actions, []);
  });

  it('deletes an unhealthy condemned pod only when it is the first unhealthy one', () => {
    const set = statefulSet({ replicas: 1 });
    assert.deepEqual(describeActions(planStatefulSet(input(set, [member(set, 0), member(set, 1), member(set, 2, { ready: false })])).actions), ['delete web-2']);
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0), member(set, 1, { ready: false }), member(set, 2, { ready: false })])).actions, []);
  });

  it('deletes a failed pod with a Warning event, and a succeeded one with a Normal event', () => {
    const set = statefulSet();
    const failed = planStatefulSet(input(set, [member(set, 0, { phase: 'Failed' })]));
    assert.deepEqual(describeActions(failed.actions), ['delete web-0']);
    assert.deepEqual(failed.events, [{ type: 'Warning', reason: 'RecreatingFailedPod', message: 'StatefulSet ns/web is recreating failed Pod web-0' }]);
    const done = planStatefulSet(input(set, [member(set, 0, { phase: 'Succeeded' })]));
    assert.equal(done.events[0]?.reason, 'RecreatingTerminatedPod');
    assert.deepEqual(planStatefulSet(input(set, [member(set, 0, { phase: 'Failed', deleting: true })])).actions, []);
  });

  it('fixes a pod whose identity drifted, without stopping', () => {
    const set = statefulSet();
    const drifted = member(set, 0);
    delete drifted.metadata.labels!['statefulset.kubernetes.io/pod-name'];
    assert.deepEqual(describeActions(planStatefulSet(input(set, [drifted])).actions), ['fix-identity web-0', 'create web-1']);
  });

  it('does nothing but report status while the set is being deleted', () => {
    const set = statefulSet();
    set.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const plan = planStatefulSet(input(set, [member(set, 0)]));
    assert.deepEqual(plan.actions, []);
    assert.equal(plan.status.replicas, 1);
  });
});

describe('StatefulSet plan, Parallel', () => {
  it('creates every missing pod and deletes every condemned pod at once', () => {
    const set = statefulSet({ podManagementPolicy: 'Parallel' });
    assert.deepEqual(describeActions(planStatefulSet(input(set, [member(set, 1, { ready: false })])).actions), ['create web-0', 'create web-2']);
    const down = statefulSet({ podManagementPolicy: 'Parallel', replicas: 1 });
    const pods = [member(down, 0, { ready: false }), member(down, 1), member(down, 2, { ready: false }), member(down, 3, { deleting: true })];
    assert.deepEqual(describeActions(planStatefulSet(input(down, pods)).actions), ['delete web-2', 'delete web-1']);
  });
});

describe('StatefulSet plan, updates', () => {
  const pods = (set: StatefulSetObject, revisions: string[], ready = true) => revisions.map((r, i) => member(set, i, { revision: r, ready }));

  it('deletes the highest-ordinal outdated pod, then waits for it to come back healthy', () => {
    const set = statefulSet();
    assert.deepEqual(describeActions(planStatefulSet(input(set, pods(set, ['web-r1', 'web-r1', 'web-r1']), r2)).actions), ['delete web-2']);
    const recreated = [...pods(set, ['web-r1', 'web-r1']), member(set, 2, { revision: 'web-r2', ready: false })];
    assert.deepEqual(planStatefulSet(input({ ...set, spec: { ...set.spec!, podManagementPolicy: 'Parallel' } }, recreated, r2)).actions, []);
    assert.deepEqual(describeActions(planStatefulSet(input(set, pods(set, ['web-r1', 'web-r1', 'web-r2']), r2)).actions), ['delete web-1']);
  });

  it('stops at the partition', () => {
    const set = statefulSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    assert.deepEqual(planStatefulSet(input(set, pods(set, ['web-r1', 'web-r1', 'web-r2']), r2)).actions, []);
    assert.deepEqual(describeActions(planStatefulSet(input(set, pods(set, ['web-r1', 'web-r1', 'web-r1']), r2)).actions), ['delete web-2']);
  });

  it('never deletes for an update under OnDelete', () => {
    const set = statefulSet({ updateStrategy: { type: 'OnDelete' } });
    assert.deepEqual(planStatefulSet(input(set, pods(set, ['web-r1', 'web-r1', 'web-r1']), r2)).actions, []);
  });

  it('with maxUnavailable, deletes up to that many outdated pods, counting unavailable ones', () => {
    const set = statefulSet({ podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } });
    assert.deepEqual(describeActions(planStatefulSet(input(set, pods(set, ['web-r1', 'web-r1', 'web-r1']), r2)).actions), ['delete web-2', 'delete web-1']);
    const oneDown = [member(set, 0, { revision: 'web-r1' }), member(set, 1, { revision: 'web-r1' }), member(set, 2, { revision: 'web-r2', ready: false })];
    assert.deepEqual(describeActions(planStatefulSet(input(set, oneDown, r2)).actions), ['delete web-1']);
    const pct = statefulSet({ podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } } });
    assert.deepEqual(describeActions(planStatefulSet(input(pct, pods(pct, ['web-r1', 'web-r1', 'web-r1']), r2)).actions), ['delete web-2']);
  });
});

describe('StatefulSet status', () => {
  it('counts replicas, ready, available, current and updated, and completes a finished rolling update', () => {
    const set = statefulSet();
    const status = statefulSetStatus(input(set, [member(set, 0, { revision: 'web-r1' }), member(set, 1, { revision: 'web-r2', ready: false }), member(set, 2, { revision: 'web-r2', deleting: true })], r2));
    assert.deepEqual(status, {
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      currentReplicas: 1,
      updatedReplicas: 1,
      currentRevision: 'web-r1',
      updateRevision: 'web-r2',
      collisionCount: 0,
    });
    const done = statefulSetStatus(input(set, [member(set, 0, { revision: 'web-r2' })], r2));
    assert.equal(done.currentRevision, 'web-r2');
    assert.equal(done.currentReplicas, 1);
    assert.equal(statusChanged(set, done), true);
    Object.assign(set, { status: done });
    assert.equal(statusChanged(set, done), false);
  });
});
