import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { selectionPredicate } from '../../../endpoints/selection.js';
import type { Target } from '../../../endpoints/target.js';
import { serviceStrategy } from './strategy.js';

const target = { store: { strategy: serviceStrategy } } as unknown as Target;
const service = (name: string, type: string, clusterIP: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type, clusterIP } });
const select = (fieldSelector: string, services: KubeObject[]): string[] => {
  const predicate = selectionPredicate(new URLSearchParams({ fieldSelector }), target)!;
  return services.filter(predicate).map((s) => s.metadata.name!);
};

describe('services: field selectors', () => {
  const all = [service('web', 'ClusterIP', '10.96.0.10'), service('headless', 'ClusterIP', 'None'), service('np', 'NodePort', '10.96.0.11')];

  it('selects on spec.clusterIP (kube-proxy: spec.clusterIP!=None) and spec.type, as upstream', () => {
    assert.deepEqual(select('spec.clusterIP!=None', all), ['web', 'np']);
    assert.deepEqual(select('spec.type=NodePort', all), ['np']);
    assert.deepEqual(select('spec.type=ClusterIP,metadata.name!=web', all), ['headless']);
  });

  it('refuses any other field', () => {
    assert.throws(() => select('spec.selector=x', all), /field label not supported: spec.selector/);
  });
});
