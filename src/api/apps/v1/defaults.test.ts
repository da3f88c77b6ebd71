import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from './defaults.js';

const template = () => ({ metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } });

describe('apps/v1 defaults', () => {
  it('deployments: replicas, rolling update 25%/25%, history, progress deadline, template', () => {
    const d: Deployment = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template: template() } };
    defaultDeployment(d);
    const { template: t, ...spec } = d.spec!;
    assert.deepEqual(spec, {
      selector: { matchLabels: { app: 'a' } },
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    assert.equal(t.metadata!.creationTimestamp, null);
    assert.equal(t.spec!.restartPolicy, 'Always');
    assert.equal(t.spec!.containers[0]!.imagePullPolicy, 'IfNotPresent');
  });

  it('deployments: Recreate gets no rolling update, explicit values stay', () => {
    const d: Deployment = { metadata: {}, spec: { replicas: 0, selector: {}, template: template(), strategy: { type: 'Recreate' } } };
    defaultDeployment(d);
    assert.deepEqual(d.spec!.strategy, { type: 'Recreate' });
    assert.equal(d.spec!.replicas, 0);
  });

  it('replica sets: replicas 1', () => {
    const rs: ReplicaSet = { metadata: {}, spec: { selector: {}, template: template() } };
    defaultReplicaSet(rs);
    assert.equal(rs.spec!.replicas, 1);
    assert.equal(rs.spec!.template!.spec!.dnsPolicy, 'ClusterFirst');
  });

  it('stateful sets: management policy, update strategy, PVC retention, replicas, history, claim templates', () => {
    const sts: StatefulSet = {
      metadata: {},
      spec: {
        serviceName: 's',
        selector: {},
        template: template(),
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
      },
    };
    defaultStatefulSet(sts);
    const { template: _t, volumeClaimTemplates, ...spec } = sts.spec!;
    assert.deepEqual(spec, {
      serviceName: 's',
      selector: {},
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      replicas: 1,
      revisionHistoryLimit: 10,
    });
    assert.deepEqual(volumeClaimTemplates, [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', creationTimestamp: null },
        spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
    ]);
  });

  it('stateful sets: OnDelete keeps no rolling update', () => {
    const sts: StatefulSet = { metadata: {}, spec: { serviceName: 's', selector: {}, template: template(), updateStrategy: { type: 'OnDelete' } } };
    defaultStatefulSet(sts);
    assert.deepEqual(sts.spec!.updateStrategy, { type: 'OnDelete' });
  });

  it('daemon sets: rolling update 1/0 and history', () => {
    const ds: DaemonSet = { metadata: {}, spec: { selector: {}, template: template() } };
    defaultDaemonSet(ds);
    assert.deepEqual(ds.spec!.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(ds.spec!.revisionHistoryLimit, 10);
  });
});
