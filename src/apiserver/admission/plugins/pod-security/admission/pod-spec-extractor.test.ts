import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractPodSpec, isWorkloadResource } from './pod-spec-extractor.js';

describe('pod spec extraction', () => {
  it('knows upstream\'s workload resources', () => {
    for (const [g, r] of [['', 'replicationcontrollers'], ['', 'podtemplates'], ['apps', 'replicasets'], ['apps', 'deployments'], ['apps', 'statefulsets'], ['apps', 'daemonsets'], ['batch', 'jobs'], ['batch', 'cronjobs']] as const) {
      assert.equal(isWorkloadResource(g, r), true, r);
    }
    assert.equal(isWorkloadResource('', 'pods'), false);
    assert.equal(isWorkloadResource('', 'services'), false);
  });
  it('reads the pod, templates and the CronJob\'s job template', () => {
    const spec = { containers: [{ name: 'c' }] };
    assert.deepEqual(extractPodSpec('', 'pods', { metadata: { name: 'p' }, spec })?.spec, spec);
    assert.deepEqual(extractPodSpec('', 'podtemplates', { metadata: { name: 't' }, template: { metadata: { annotations: { a: 'b' } }, spec } }), { meta: { annotations: { a: 'b' } }, spec });
    assert.deepEqual(extractPodSpec('apps', 'daemonsets', { metadata: { name: 'd' }, spec: { template: { spec } } }), { meta: {}, spec });
    assert.deepEqual(extractPodSpec('batch', 'cronjobs', { metadata: { name: 'c' }, spec: { jobTemplate: { spec: { template: { spec } } } } })?.spec, spec);
  });
  it('gives nothing for a missing template', () => {
    assert.equal(extractPodSpec('', 'replicationcontrollers', { metadata: { name: 'rc' }, spec: { replicas: 1 } }), undefined);
    assert.equal(extractPodSpec('batch', 'cronjobs', { metadata: { name: 'c' } }), undefined);
  });
});
