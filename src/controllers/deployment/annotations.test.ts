import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReplicaSetObject } from '../util/types.js';
import { copyDeploymentAnnotations, maxRevision, revisionOf, setNewReplicaSetAnnotations, setReplicasAnnotations } from './annotations.js';

const rs = (annotations?: Record<string, string>): ReplicaSetObject => ({ metadata: { name: 'r', ...(annotations ? { annotations } : {}) } });

describe('deployment annotations', () => {
  it('revisions: parsed, absent or bad is 0, max over sets', () => {
    assert.equal(revisionOf(rs({ 'deployment.kubernetes.io/revision': '7' })), 7);
    assert.equal(revisionOf(rs()), 0);
    assert.equal(revisionOf(rs({ 'deployment.kubernetes.io/revision': 'x' })), 0);
    assert.equal(maxRevision([rs({ 'deployment.kubernetes.io/revision': '2' }), rs({ 'deployment.kubernetes.io/revision': '5' }), rs()]), 5);
  });

  it('copies the deployment annotations except the controller-owned ones, never removing', () => {
    const target = rs({ keep: 'me' });
    const changed = copyDeploymentAnnotations(
      { 'kubernetes.io/change-cause': 'kubectl set image', 'deployment.kubernetes.io/revision': '9', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      target,
    );
    assert.equal(changed, true);
    assert.deepEqual(target.metadata.annotations, { keep: 'me', 'kubernetes.io/change-cause': 'kubectl set image' });
    assert.equal(copyDeploymentAnnotations({ 'kubernetes.io/change-cause': 'kubectl set image' }, target), false);
  });

  it('replicas annotations', () => {
    const target = rs();
    assert.equal(setReplicasAnnotations(target, 3, 4), true);
    assert.deepEqual(target.metadata.annotations, { 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    assert.equal(setReplicasAnnotations(target, 3, 4), false);
  });

  it('a new ReplicaSet gets the revision and replicas annotations', () => {
    const target = rs();
    assert.equal(setNewReplicaSetAnnotations({ deploymentAnnotations: { a: 'b' }, rs: target, newRevision: 1, exists: false, desired: 2, max: 3 }), true);
    assert.deepEqual(target.metadata.annotations, {
      a: 'b',
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
  });

  it('a reused ReplicaSet (rollback) takes the new revision and remembers its old ones', () => {
    const target = rs({ 'deployment.kubernetes.io/revision': '1' });
    setNewReplicaSetAnnotations({ deploymentAnnotations: undefined, rs: target, newRevision: 3, exists: true, desired: 2, max: 3 });
    assert.equal(target.metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
    assert.equal(target.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(target.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], undefined, 'existing sets keep their replicas annotations');
    setNewReplicaSetAnnotations({ deploymentAnnotations: undefined, rs: target, newRevision: 5, exists: true, desired: 2, max: 3 });
    assert.equal(target.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1,3');
    assert.equal(setNewReplicaSetAnnotations({ deploymentAnnotations: undefined, rs: target, newRevision: 4, exists: true, desired: 2, max: 3 }), false, 'never lowered');
  });

  it('revision history is trimmed from the oldest end to 2000 characters; a bad revision is left alone', () => {
    const long = Array.from({ length: 500 }, (_, i) => String(1000 + i)).join(',');
    const target = rs({ 'deployment.kubernetes.io/revision': '2000', 'deployment.kubernetes.io/revision-history': long });
    setNewReplicaSetAnnotations({ deploymentAnnotations: undefined, rs: target, newRevision: 2001, exists: true, desired: 1, max: 1 });
    const history = target.metadata.annotations?.['deployment.kubernetes.io/revision-history'] ?? '';
    assert.ok(history.length <= 2000);
    assert.ok(history.endsWith(',2000'));
    const bad = rs({ 'deployment.kubernetes.io/revision': 'x' });
    assert.equal(setNewReplicaSetAnnotations({ deploymentAnnotations: undefined, rs: bad, newRevision: 2, exists: true, desired: 1, max: 1 }), false);
  });
});
