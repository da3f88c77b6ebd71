import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimName,
  identityMatches,
  isMemberOf,
  newStatefulSetPod,
  newVersionedStatefulSetPod,
  ordinalInRange,
  parentAndOrdinal,
  POD_INDEX_LABEL,
  POD_NAME_LABEL,
  storageMatches,
  updateIdentity,
  updateStorage,
} from './identity.js';
import { member, statefulSet } from './testing/fixtures.js';
import type { StatefulSetObject } from './types.js';

const withClaims = (): StatefulSetObject =>
  statefulSet({
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }], volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c' } }] },
    },
  });

describe('StatefulSet pod identity', () => {
  it('reads the parent and ordinal from pod names', () => {
    const set = statefulSet();
    assert.deepEqual(parentAndOrdinal(member(set, 12)), { parent: 'web', ordinal: 12 });
    assert.deepEqual(parentAndOrdinal({ metadata: { name: 'web' } }), { parent: '', ordinal: -1 });
    assert.deepEqual(parentAndOrdinal({ metadata: { name: 'web-99999999999' } }), { parent: '', ordinal: -1 });
    assert.equal(isMemberOf(set, member(set, 0)), true);
    assert.equal(isMemberOf(set, { metadata: { name: 'webx-0' } }), false);
  });

  it('honours spec.ordinals.start for the range', () => {
    const set = statefulSet({ ordinals: { start: 5 }, replicas: 2 });
    assert.equal(ordinalInRange(set, 4), false);
    assert.equal(ordinalInRange(set, 5), true);
    assert.equal(ordinalInRange(set, 6), true);
    assert.equal(ordinalInRange(set, 7), false);
  });

  it('makes pod <set>-<ordinal> with labels, hostname, subdomain, owner and generateName', () => {
    const pod = newStatefulSetPod(statefulSet(), 2);
    assert.equal(pod.metadata.name, 'web-2');
    assert.equal(pod.metadata.generateName, 'web-');
    assert.equal(pod.metadata.namespace, 'ns');
    assert.deepEqual(pod.metadata.labels, { app: 'web', [POD_NAME_LABEL]: 'web-2', [POD_INDEX_LABEL]: '2' });
    assert.equal(pod.spec?.hostname, 'web-2');
    assert.equal(pod.spec?.subdomain, 'web');
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'sts-uid', controller: true, blockOwnerDeletion: true }]);
    assert.equal(identityMatches(statefulSet(), pod), true);
  });

  it('names claim volumes <template>-<set>-<ordinal>, replacing a template volume of the same name', () => {
    const set = withClaims();
    const pod = newStatefulSetPod(set, 1);
    assert.equal(claimName('data', set, 1), 'data-web-1');
    assert.deepEqual(pod.spec?.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } }, { name: 'cfg', configMap: { name: 'c' } }]);
    assert.equal(storageMatches(set, pod), true);
    assert.equal(storageMatches(set, member(set, 1)), false);
    assert.equal(storageMatches(statefulSet(), member(set, 1)), true);
    assert.equal(storageMatches(set, { metadata: { name: 'nope' } }), false);
  });

  it('repairs identity and storage of a drifted pod', () => {
    const set = withClaims();
    const pod = member(set, 1);
    delete pod.metadata.labels![POD_NAME_LABEL];
    assert.equal(identityMatches(set, pod), false);
    updateIdentity(set, pod);
    updateStorage(set, pod);
    assert.equal(identityMatches(set, pod), true);
    assert.equal(storageMatches(set, pod), true);
    const elsewhere = member(set, 1);
    elsewhere.metadata.namespace = 'other';
    assert.equal(identityMatches(set, elsewhere), false);
  });

  it('makes pods below the partition at the current revision, the rest at the update revision', () => {
    const current = statefulSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
    const update = statefulSet({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } },
    });
    const make = (ordinal: number) => newVersionedStatefulSetPod({ currentSet: current, updateSet: update, currentRevision: 'web-a', updateRevision: 'web-b', ordinal });
    assert.equal(make(1).metadata.labels?.['controller-revision-hash'], 'web-a');
    assert.equal(make(1).spec?.containers[0]?.image, 'nginx:1');
    assert.equal(make(2).metadata.labels?.['controller-revision-hash'], 'web-b');
    assert.equal(make(2).spec?.containers[0]?.image, 'nginx:2');
    const onDelete = statefulSet({ updateStrategy: { type: 'OnDelete' } });
    assert.equal(newVersionedStatefulSetPod({ currentSet: onDelete, updateSet: onDelete, currentRevision: 'a', updateRevision: 'b', ordinal: 0 }).metadata.labels?.['controller-revision-hash'], 'b');
  });
});
