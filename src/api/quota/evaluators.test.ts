import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { quotaMatches } from './evaluator.js';
import { evaluatorFor, resourceOfQuotaName } from './evaluators.js';
import { claimUsage } from './persistent-volume-claims.js';
import { podUsage } from './pods.js';
import { serviceUsage } from './services.js';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('quota evaluators', () => {
  it('pods: count/pods always, compute usage while not terminal, init containers, sidecars and overhead as upstream', () => {
    const pod = {
      metadata: { name: 'p' },
      spec: {
        containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi', 'example.com/gpu': '1', 'hugepages-2Mi': '4Mi' }, limits: { cpu: '200m' } } }],
        initContainers: [
          { name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '50m' } } },
          { name: 'init', resources: { requests: { cpu: '1', memory: '32Mi' } } },
        ],
        overhead: { cpu: '10m' },
      },
    };
    assert.deepEqual(podUsage(pod, NOW), {
      'count/pods': '1',
      pods: '1',
      cpu: '1060m',
      'requests.cpu': '1060m',
      memory: '64Mi',
      'requests.memory': '64Mi',
      'limits.cpu': '210m',
      'hugepages-2Mi': '4Mi',
      'requests.hugepages-2Mi': '4Mi',
      'requests.example.com/gpu': '1',
    });
    assert.deepEqual(podUsage({ ...pod, status: { phase: 'Succeeded' } }, NOW), { 'count/pods': '1' });
    const stuck = { ...pod, metadata: { name: 'p', deletionTimestamp: '2025-12-31T23:00:00Z', deletionGracePeriodSeconds: 30 } };
    assert.deepEqual(podUsage(stuck, NOW), { 'count/pods': '1' });
  });

  it('pods: matching resources include hugepages and requests.<extended>, not other names', () => {
    const e = evaluatorFor('', 'pods');
    assert.deepEqual(e.matchingResources(['pods', 'requests.example.com/gpu', 'requests.hugepages-1Gi', 'services', 'example.com/gpu', 'requests.storage']), [
      'pods',
      'requests.example.com/gpu',
      'requests.hugepages-1Gi',
    ]);
    assert.ok(e.handles('CREATE', '') && !e.handles('UPDATE', '') && !e.handles('CREATE', 'status') && e.handles('UPDATE', 'resize'));
  });

  it('pods: scopes NotTerminating, NotBestEffort, PriorityClass operators, CrossNamespacePodAffinity', () => {
    const e = evaluatorFor('', 'pods');
    const plain = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }] } } as KubeObject;
    const vip = { metadata: { name: 'p' }, spec: { priorityClassName: 'high', containers: [{ name: 'a', resources: { limits: { memory: '1Gi' } } }] } } as KubeObject;
    const scope = (scopeName: string, operator = 'Exists', values?: string[]) => ({ scopeName, operator, ...(values ? { values } : {}) });
    assert.ok(e.matchesScope(scope('NotTerminating'), plain));
    assert.ok(e.matchesScope(scope('BestEffort'), plain) && !e.matchesScope(scope('NotBestEffort'), plain));
    assert.ok(e.matchesScope(scope('NotBestEffort'), vip));
    assert.ok(e.matchesScope(scope('PriorityClass'), vip) && !e.matchesScope(scope('PriorityClass'), plain));
    assert.ok(e.matchesScope(scope('PriorityClass', 'NotIn', ['high']), plain) && !e.matchesScope(scope('PriorityClass', 'NotIn', ['high']), vip));
    assert.ok(e.matchesScope(scope('PriorityClass', 'DoesNotExist'), plain));
    assert.ok(!e.matchesScope(scope('CrossNamespacePodAffinity'), plain));
    const cross = { metadata: { name: 'p' }, spec: { containers: [], affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k', namespaces: ['x'] }] } } } } as KubeObject;
    assert.ok(e.matchesScope(scope('CrossNamespacePodAffinity'), cross));
  });

  it('quotaMatches needs status.hard to name a tracked resource, and every scope to match; other kinds have no scopes', () => {
    const pods = evaluatorFor('', 'pods');
    const object = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }] } } as KubeObject;
    assert.ok(!quotaMatches(pods, { spec: { hard: { pods: '1' } } }, object));
    assert.ok(quotaMatches(pods, { status: { hard: { pods: '1' } } }, object));
    assert.ok(!quotaMatches(pods, { spec: { scopes: ['Terminating'] }, status: { hard: { pods: '1' } } }, object));
    const cms = evaluatorFor('', 'configmaps');
    assert.ok(!quotaMatches(cms, { spec: { scopes: ['BestEffort'] }, status: { hard: { configmaps: '1' } } }, { metadata: { name: 'c' } }));
  });

  it('services: node ports by type, load balancers, explicit node ports without allocation', () => {
    const ports = [{ port: 80, nodePort: 30001 }, { port: 81 }];
    assert.deepEqual(serviceUsage({ spec: { type: 'ClusterIP', ports } }), { 'count/services': '1', services: '1' });
    assert.deepEqual(serviceUsage({ spec: { type: 'NodePort', ports } }), { 'count/services': '1', services: '1', 'services.nodeports': '2' });
    assert.deepEqual(serviceUsage({ spec: { type: 'LoadBalancer', ports, allocateLoadBalancerNodePorts: false } }), {
      'count/services': '1',
      services: '1',
      'services.nodeports': '1',
      'services.loadbalancers': '1',
    });
  });

  it('persistent volume claims: storage requested, by storage class too, the larger of request and allocation', () => {
    assert.deepEqual(claimUsage({ spec: { storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } }, status: { allocatedResources: { storage: '2Gi' } } }), {
      'count/persistentvolumeclaims': '1',
      persistentvolumeclaims: '1',
      'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'requests.storage': '2Gi',
      'fast.storageclass.storage.k8s.io/requests.storage': '2Gi',
    });
    const e = evaluatorFor('', 'persistentvolumeclaims');
    assert.deepEqual(e.matchingResources(['requests.storage', 'fast.storageclass.storage.k8s.io/requests.storage', 'pods']), [
      'requests.storage',
      'fast.storageclass.storage.k8s.io/requests.storage',
    ]);
  });

  it('object counts: legacy names for configmaps and secrets, count/<resource>.<group> for any resource', () => {
    assert.deepEqual(evaluatorFor('', 'configmaps').usage({ metadata: {} }, NOW), { 'count/configmaps': '1', configmaps: '1' });
    assert.deepEqual(evaluatorFor('apps', 'deployments').usage({ metadata: {} }, NOW), { 'count/deployments.apps': '1' });
    assert.ok(!evaluatorFor('apps', 'deployments').handles('UPDATE', ''));
    assert.deepEqual(resourceOfQuotaName('count/deployments.apps'), { group: 'apps', resource: 'deployments' });
    assert.deepEqual(resourceOfQuotaName('requests.cpu'), { group: '', resource: 'pods' });
    assert.deepEqual(resourceOfQuotaName('services.nodeports'), { group: '', resource: 'services' });
    assert.deepEqual(resourceOfQuotaName('secrets'), { group: '', resource: 'secrets' });
    assert.equal(resourceOfQuotaName('bogus'), undefined);
  });
});
