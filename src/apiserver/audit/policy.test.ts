import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkPolicy, defaultServerPolicy, loadAuditPolicy, newPolicyEvaluator, type RequestAttributes } from './policy.js';
import type { Policy } from './types.js';

function request(overrides: Partial<RequestAttributes> = {}): RequestAttributes {
  return {
    user: 'alice',
    groups: ['system:authenticated'],
    verb: 'get',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods/web',
    namespace: 'default',
    apiGroup: '',
    resource: 'pods',
    subresource: '',
    name: 'web',
    ...overrides,
  };
}

function policy(rules: Policy['rules'], extra: Partial<Policy> = {}): Policy {
  return { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules, ...extra };
}

describe('audit policy evaluation', () => {
  it('takes the first matching rule, and None when no rule matches', () => {
    const evaluator = newPolicyEvaluator(policy([{ level: 'RequestResponse', users: ['bob'] }, { level: 'Request', verbs: ['create'] }]));
    assert.equal(evaluator.evaluate(request({ user: 'bob' })).level, 'RequestResponse');
    assert.equal(evaluator.evaluate(request({ verb: 'create' })).level, 'Request');
    assert.equal(evaluator.evaluate(request()).level, 'None');
  });

  it('matches groups, namespaces, resources, subresources and names as upstream', () => {
    const evaluator = newPolicyEvaluator(
      policy([
        { level: 'Request', userGroups: ['system:nodes'] },
        { level: 'RequestResponse', resources: [{ group: '', resources: ['pods/log'] }] },
        { level: 'Metadata', resources: [{ group: 'apps', resources: ['*/scale'] }] },
        { level: 'Request', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['settings'] }] },
        { level: 'Metadata', namespaces: ['kube-system'] },
        { level: 'Request', resources: [{ group: 'batch', resources: ['jobs/*'] }] },
      ]),
    );
    assert.equal(evaluator.evaluate(request({ groups: ['system:nodes'] })).level, 'Request');
    assert.equal(evaluator.evaluate(request({ subresource: 'log' })).level, 'RequestResponse');
    assert.equal(evaluator.evaluate(request({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' })).level, 'Metadata');
    assert.equal(evaluator.evaluate(request({ apiGroup: 'apps', resource: 'deployments' })).level, 'None');
    assert.equal(evaluator.evaluate(request({ resource: 'configmaps', name: 'settings' })).level, 'Request');
    assert.equal(evaluator.evaluate(request({ resource: 'configmaps', name: 'other' })).level, 'None');
    assert.equal(evaluator.evaluate(request({ namespace: 'kube-system', resource: 'secrets' })).level, 'Metadata');
    assert.equal(evaluator.evaluate(request({ apiGroup: 'batch', resource: 'jobs', subresource: 'status' })).level, 'Request');
  });

  it('matches non-resource URLs exactly or by a trailing *, never resource requests', () => {
    const evaluator = newPolicyEvaluator(policy([{ level: 'None', nonResourceURLs: ['/healthz*', '/version'] }, { level: 'Metadata' }]));
    const nonResource = (path: string): RequestAttributes => request({ isResourceRequest: false, path, resource: '', namespace: '', name: '' });
    assert.equal(evaluator.evaluate(nonResource('/healthz/ping')).level, 'None');
    assert.equal(evaluator.evaluate(nonResource('/version')).level, 'None');
    assert.equal(evaluator.evaluate(nonResource('/versions')).level, 'Metadata');
    assert.equal(evaluator.evaluate(request({ path: '/healthz' })).level, 'Metadata');
  });

  it('joins the policy\'s and the rule\'s omitted stages', () => {
    const evaluator = newPolicyEvaluator(policy([{ level: 'Metadata', omitStages: ['ResponseStarted'] }], { omitStages: ['RequestReceived'] }));
    assert.deepEqual([...evaluator.evaluate(request()).omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  });

  it('the built-in server policy logs objects at Metadata and leaves out probes and lease renewals', () => {
    const evaluator = newPolicyEvaluator(defaultServerPolicy());
    assert.equal(evaluator.evaluate(request({ verb: 'create' })).level, 'Metadata');
    assert.equal(evaluator.evaluate(request({ isResourceRequest: false, path: '/readyz', resource: '' })).level, 'None');
    const renew = request({ user: 'system:kube-controller-manager', verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' });
    assert.equal(evaluator.evaluate(renew).level, 'None');
    assert.equal(evaluator.evaluate({ ...renew, user: 'alice' }).level, 'Metadata');
    assert.ok(evaluator.evaluate(request()).omitStages.has('RequestReceived'));
  });
});

describe('audit policy files', () => {
  it('loads YAML and refuses bad documents with the field named', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-policy-'));
    try {
      const good = join(dir, 'good.yaml');
      await writeFile(good, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: ""\n    resources: ["pods"]\n');
      const loaded = await loadAuditPolicy(good);
      assert.equal(loaded.rules[0]?.level, 'Metadata');
      await assert.rejects(loadAuditPolicy(join(dir, 'missing.yaml')), /reading audit policy file/);
      const broken = join(dir, 'broken.yaml');
      await writeFile(broken, 'rules: [');
      await assert.rejects(loadAuditPolicy(broken), /not valid YAML or JSON/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names what is wrong', () => {
    const base = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy' };
    assert.throws(() => checkPolicy([]), /must be an object/);
    assert.throws(() => checkPolicy({ ...base, kind: 'Pod', rules: [{ level: 'None' }] }), /kind must be "Policy"/);
    assert.throws(() => checkPolicy({ ...base, apiVersion: 'audit.k8s.io/v1beta1', rules: [{ level: 'None' }] }), /apiVersion must be "audit.k8s.io\/v1"/);
    assert.throws(() => checkPolicy({ ...base, rules: [] }), /at least one rule/);
    assert.throws(() => checkPolicy({ ...base, rules: [{ level: 'Everything' }] }), /rules\[0\]\.level: must be one of None, Metadata, Request, RequestResponse/);
    assert.throws(() => checkPolicy({ ...base, rules: [{ level: 'None', omitStages: ['Later'] }] }), /rules\[0\]\.omitStages: unknown stage "Later"/);
    assert.throws(() => checkPolicy({ ...base, rules: [{ level: 'None', users: 'bob' }] }), /rules\[0\]\.users: must be a list of strings/);
    assert.throws(() => checkPolicy({ ...base, rules: [{ level: 'None', nonResourceURLs: ['healthz'] }] }), /must start with "\/"/);
    assert.throws(
      () => checkPolicy({ ...base, rules: [{ level: 'None', nonResourceURLs: ['/x'], resources: [{ resources: ['pods'] }] }] }),
      /both regular resources and non-resource URLs/,
    );
    assert.throws(() => checkPolicy({ ...base, rules: [{ level: 'None', resources: [{ resources: ['a/b/c'] }] }] }), /invalid resource "a\/b\/c"/);
  });
});
