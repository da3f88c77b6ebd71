import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newIndexer } from '../../../client/cache/indexer.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { Pod } from '../../framework/types.js';
import { makePod } from '../inter-pod-affinity/testing/fake-handle.js';
import { defaultSelector, type WorkloadIndexers } from './default-selector.js';

function indexers(objects: { services?: KubeObject[]; replicaSets?: KubeObject[]; statefulSets?: KubeObject[] }): WorkloadIndexers {
  const of = (list: KubeObject[] = []): ReturnType<typeof newIndexer> => {
    const indexer = newIndexer();
    for (const o of list) indexer.upsert(o);
    return indexer;
  };
  return { services: of(objects.services), replicaSets: of(objects.replicaSets), statefulSets: of(objects.statefulSets) };
}

const service = (name: string, selector: Record<string, string> | undefined, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec: selector === undefined ? {} : { selector },
} as KubeObject);

function ownedBy(pod: Pod, apiVersion: string, kind: string, name: string): Pod {
  pod.metadata.ownerReferences = [{ apiVersion, kind, name, uid: 'u', controller: true }];
  return pod;
}

describe('defaultSelector', () => {
  it('merges the selectors of the Services in the pod’s namespace that select it', () => {
    const pod = makePod({ labels: { app: 'web', tier: 'front' } });
    const services = [service('a', { app: 'web' }), service('b', { tier: 'front' }), service('c', { app: 'db' }), service('d', undefined), service('e', { app: 'web', x: '1' }, 'other')];
    assert.equal(defaultSelector(pod, indexers({ services })).toString(), 'app=web,tier=front');
    assert.equal(defaultSelector(makePod(), indexers({ services })).empty(), true);
  });

  it('adds the controlling ReplicaSet’s or StatefulSet’s selector', () => {
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['canary'] }] } } } as KubeObject;
    const ss = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'db' } } } } as KubeObject;
    const all = indexers({ services: [service('s', { team: 'x' })], replicaSets: [rs], statefulSets: [ss] });
    assert.equal(defaultSelector(ownedBy(makePod({ labels: { team: 'x' } }), 'apps/v1', 'ReplicaSet', 'rs'), all).toString(), 'app=web,team=x,track notin (canary)');
    assert.equal(defaultSelector(ownedBy(makePod(), 'apps/v1', 'StatefulSet', 'ss'), all).toString(), 'app=db');
  });

  it('ignores missing workloads, other kinds and versions, and selectors that do not parse', () => {
    const bad = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'bad', namespace: 'default' }, spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Nope' }] } } } as KubeObject;
    const all = indexers({ replicaSets: [bad] });
    assert.equal(defaultSelector(ownedBy(makePod(), 'apps/v1', 'ReplicaSet', 'missing'), all).empty(), true);
    assert.equal(defaultSelector(ownedBy(makePod(), 'apps/v1', 'ReplicaSet', 'bad'), all).empty(), true);
    assert.equal(defaultSelector(ownedBy(makePod(), 'apps/v1beta2', 'ReplicaSet', 'bad'), all).empty(), true);
    assert.equal(defaultSelector(ownedBy(makePod(), 'batch/v1', 'Job', 'j'), all).empty(), true);
  });
});
