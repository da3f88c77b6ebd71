import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { NAME, newValidatingAdmissionPolicy, newValidatingAdmissionPolicyWith } from './plugin.js';
import { binding, configMap, deployment, deploymentRequest, namespace, policy, refusal, testCluster, type TestCluster } from './testing/policies.js';
import { attributesFor } from '../testing/attributes.js';
import type { GenericStore } from '../../../registry/generic/store.js';

const clusters: TestCluster[] = [];
after(() => clusters.forEach((c) => c.stop()));

async function cluster(...objects: Parameters<typeof testCluster>): Promise<TestCluster> {
  const c = await testCluster(namespace('default', { env: 'prod' }), namespace('dev', { env: 'test' }), ...objects);
  clusters.push(c);
  return c;
}

const replicasPolicy = (name = 'demo-policy.example.com', over: Parameters<typeof policy>[1] = {}) => policy(name, { validations: [{ expression: 'object.spec.replicas <= 5' }], ...over });

describe(NAME, () => {
  it('is named as upstream and built by newValidatingAdmissionPolicy', async () => {
    const c = await cluster();
    assert.equal(c.plugin.name, 'ValidatingAdmissionPolicy');
    assert.equal(typeof newValidatingAdmissionPolicy, 'function');
    await c.plugin.validate(deploymentRequest(deployment('web', 9)));
    // Ready and without a policy: answered at once, without a promise.
    assert.equal(c.plugin.validate(deploymentRequest(deployment('web', 9))), undefined);
  });

  it("denies with upstream's message and 422 Invalid when a Deny binding's validation fails, and admits what passes", async () => {
    const c = await cluster(replicasPolicy(), binding('demo-binding-test.example.com', 'demo-policy.example.com'));
    const e = await refusal(c.plugin.validate(deploymentRequest(deployment('nginx', 6))));
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    const message = "deployments.apps \"nginx\" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5";
    assert.equal(e.message, message);
    assert.deepEqual(e.status.details, { name: 'nginx', group: 'apps', kind: 'deployments', causes: [{ message: "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5" }] });
    await c.plugin.validate(deploymentRequest(deployment('nginx', 3)));
  });

  it('uses message, then messageExpression, and the reason for the code', async () => {
    const c = await cluster(
      policy('p', {
        validations: [
          { expression: 'object.spec.replicas <= 5', message: '  too many replicas  ', reason: 'Forbidden' },
          { expression: 'object.spec.replicas <= 4', messageExpression: '"replicas " + string(object.spec.replicas) + " > 4"', message: 'unused' },
          { expression: 'object.spec.replicas <= 3', messageExpression: 'object.nope', message: 'fallback message' },
          { expression: 'object.spec.replicas <= 2', messageExpression: '"two\\nlines"', reason: 'RequestEntityTooLarge' },
        ],
      }),
      binding('b', 'p'),
    );
    let e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 6))));
    assert.equal(e.code, 403);
    assert.equal(e.reason, 'Forbidden');
    assert.match(e.message, /denied request: too many replicas$/);
    e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 5))));
    assert.equal(e.code, 422);
    assert.match(e.message, /denied request: replicas 5 > 4$/);
    e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 4))));
    assert.match(e.message, /denied request: fallback message$/, 'a failing messageExpression falls back to message');
    e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 3))));
    assert.equal(e.code, 413);
    assert.match(e.message, /denied request: failed expression: object.spec.replicas <= 2$/, 'a multi-line message is not used');
  });

  it('Warn adds a Warning, Audit an audit annotation; neither refuses', async () => {
    const c = await cluster(replicasPolicy('p'), binding('warn', 'p', { validationActions: ['Warn', 'Audit'] }));
    const attributes = deploymentRequest(deployment('d', 7));
    await c.plugin.validate(attributes);
    assert.deepEqual(attributes.warnings, ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': failed expression: object.spec.replicas <= 5"]);
    assert.deepEqual(attributes.annotations, {
      'validation.policy.admission.k8s.io/validation_failure':
        '[{"message":"failed expression: object.spec.replicas \\u003c= 5","policy":"p","binding":"warn","expressionIndex":0,"validationActions":["Warn","Audit"]}]',
    });
    const fine = deploymentRequest(deployment('d', 2));
    await c.plugin.validate(fine);
    assert.deepEqual([fine.warnings, fine.annotations], [[], {}]);
  });

  it('Deny with Audit both refuses and records; the first refusal (by policy name, then binding name) is the answer', async () => {
    const c = await cluster(
      replicasPolicy('b-policy'),
      policy('a-policy', { validations: [{ expression: "object.metadata.name != 'd'", message: 'no d' }] }),
      binding('z', 'b-policy', { validationActions: ['Deny', 'Audit'] }),
      binding('y', 'a-policy'),
    );
    const attributes = deploymentRequest(deployment('d', 9));
    const e = await refusal(c.plugin.validate(attributes));
    assert.match(e.message, /ValidatingAdmissionPolicy 'a-policy' with binding 'y' denied request: no d$/);
    assert.match(attributes.annotations['validation.policy.admission.k8s.io/validation_failure'] ?? '', /"policy":"b-policy","binding":"z","expressionIndex":0,"validationActions":\["Deny","Audit"\]/);
  });

  it('refuses requests until the first list of policies is in, and needs the policy resources served', async () => {
    const hanging = { watch: () => new Promise(() => {}) } as unknown as GenericStore;
    const controller = new AbortController();
    const plugin = newValidatingAdmissionPolicyWith({ readyTimeoutMs: 20 })({ stores: () => hanging, signal: controller.signal });
    const e = await refusal(plugin.validate(deploymentRequest(deployment('d', 1))));
    controller.abort();
    assert.equal(e.code, 403);
    assert.equal(e.message, 'deployments.apps "d" is forbidden: not yet ready to handle request');
    assert.throws(() => newValidatingAdmissionPolicyWith()({ stores: () => undefined, signal: controller.signal }), /admissionregistration.k8s.io\/v1 validatingadmissionpolicies is not served/);
  });

  it("a namespace that cannot be found is the binding's configuration error, under its policy's failurePolicy", async () => {
    const selector = { matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } };
    let c = await cluster(replicasPolicy('p'), binding('b', 'p', selector));
    const e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 1, { app: 'd' }, 'gone'))));
    assert.match(e.message, /ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: namespace "gone" not found$/);
    c = await cluster(replicasPolicy('p', { failurePolicy: 'Ignore' }), binding('b', 'p', selector));
    await c.plugin.validate(deploymentRequest(deployment('d', 9, { app: 'd' }, 'gone')));
  });

  describe('matching', () => {
    it('follows resourceRules operations and excludeResourceRules with resourceNames', async () => {
      const c = await cluster(
        replicasPolicy('p', {
          matchConstraints: {
            resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
            excludeResourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'], resourceNames: ['exempt'] }],
          },
        }),
        binding('b', 'p'),
      );
      await refusal(c.plugin.validate(deploymentRequest(deployment('d', 9))));
      await c.plugin.validate(deploymentRequest(deployment('d', 9), { operation: 'UPDATE', oldObject: deployment('d', 1) }));
      await c.plugin.validate(deploymentRequest(deployment('exempt', 9)));
      await c.plugin.validate(attributesFor({ operation: 'CREATE', resource: 'configmaps', kind: 'ConfigMap', object: configMap('default', 'x', {}) }));
    });

    it("narrows by the policy's and the binding's namespaceSelector and objectSelector", async () => {
      const c = await cluster(
        replicasPolicy('p', {
          matchConstraints: {
            resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
            objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
          },
        }),
        binding('b', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } }),
      );
      await refusal(c.plugin.validate(deploymentRequest(deployment('d', 9, { app: 'd' }, 'dev'))));
      await c.plugin.validate(deploymentRequest(deployment('d', 9, { app: 'd' }, 'default')));
      await c.plugin.validate(deploymentRequest(deployment('d', 9, { skip: 'yes' }, 'dev')));
    });

    it('a binding without matchResources takes all its policy matches; policies without bindings and bindings without policies do nothing', async () => {
      const c = await cluster(replicasPolicy('unbound'), binding('orphan', 'missing'), replicasPolicy('bound'), binding('b', 'bound'));
      const e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 9, { app: 'd' }, 'dev'))));
      assert.match(e.message, /'bound' with binding 'b'/);
    });

    it('never evaluates requests about policies and bindings themselves', async () => {
      const c = await cluster(
        policy('p', {
          matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] },
          validations: [{ expression: 'false' }],
        }),
        binding('b', 'p'),
      );
      const request = attributesFor({ operation: 'CREATE', group: 'admissionregistration.k8s.io', resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespace: '', object: replicasPolicy('x') });
      await c.plugin.validate(request);
      await refusal(c.plugin.validate(attributesFor({ operation: 'CREATE', resource: 'configmaps', kind: 'ConfigMap', object: configMap('default', 'x', {}) })));
    });

    it('takes up policies and bindings created after it started, once the watch delivers them', async () => {
      const c = await cluster();
      await c.plugin.validate(deploymentRequest(deployment('d', 9)));
      await c.create('admissionregistration.k8s.io', 'validatingadmissionpolicies', replicasPolicy('late'));
      await c.create('admissionregistration.k8s.io', 'validatingadmissionpolicybindings', binding('late', 'late'));
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await c.plugin.validate(deploymentRequest(deployment('d', 9)));
        } catch (e: unknown) {
          assert.match((e as Error).message, /'late' with binding 'late'/);
          break;
        }
        if (Date.now() > deadline) assert.fail('the new policy never took effect');
        await new Promise((r) => setTimeout(r, 10));
      }
    });
  });

  describe('params', () => {
    const paramPolicy = (over: Parameters<typeof policy>[1] = {}) =>
      policy('p', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: '"at most " + params.data.maxReplicas + " replicas"' }],
        ...over,
      });

    it('reads the param by name, in the request namespace by default or in paramRef.namespace', async () => {
      const c = await cluster(
        configMap('default', 'limits', { maxReplicas: '3' }),
        configMap('dev', 'limits', { maxReplicas: '8' }),
        paramPolicy(),
        binding('b', 'p', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
      );
      const e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 4))));
      assert.match(e.message, /denied request: at most 3 replicas$/);
      await c.plugin.validate(deploymentRequest(deployment('d', 7, { app: 'd' }, 'dev')));
      const pinned = await cluster(configMap('dev', 'limits', { maxReplicas: '8' }), paramPolicy(), binding('b', 'p', { paramRef: { name: 'limits', namespace: 'dev', parameterNotFoundAction: 'Deny' } }));
      await pinned.plugin.validate(deploymentRequest(deployment('d', 7)));
    });

    it('with parameterNotFoundAction Allow a missing param admits; with Deny it refuses', async () => {
      const allow = await cluster(paramPolicy(), binding('b', 'p', { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } }));
      await allow.plugin.validate(deploymentRequest(deployment('d', 9)));
      const deny = await cluster(paramPolicy(), binding('b', 'p', { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } }));
      const e = await refusal(deny.plugin.validate(deploymentRequest(deployment('d', 1))));
      assert.equal(e.code, 422);
      assert.equal(
        e.message,
        "deployments.apps \"d\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      );
    });

    it('evaluates once per param a selector selects', async () => {
      const c = await cluster(
        configMap('default', 'a', { maxReplicas: '5' }, { limit: 'yes' }),
        configMap('default', 'b', { maxReplicas: '2' }, { limit: 'yes' }),
        configMap('default', 'c', { maxReplicas: '0' }),
        paramPolicy(),
        binding('b', 'p', { paramRef: { selector: { matchLabels: { limit: 'yes' } }, parameterNotFoundAction: 'Deny' }, validationActions: ['Warn'] }),
      );
      const attributes = deploymentRequest(deployment('d', 4));
      await c.plugin.validate(attributes);
      assert.deepEqual(attributes.warnings, ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': at most 2 replicas"]);
    });

    it('a binding without paramRef evaluates with params null; configuration errors name the policy or the binding', async () => {
      const c = await cluster(paramPolicy({ validations: [{ expression: 'params == null' }] }), binding('b', 'p'));
      await c.plugin.validate(deploymentRequest(deployment('d', 1)));
      const unknownKind = await cluster(
        policy('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Nope' }, validations: [{ expression: 'true' }] }),
        binding('b', 'p', { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } }),
      );
      let e = await refusal(unknownKind.plugin.validate(deploymentRequest(deployment('d', 1))));
      assert.match(e.message, /ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com\/v1, Kind=Nope'$/);
      const clusterScoped = await cluster(
        policy('p', {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }] },
          validations: [{ expression: 'true' }],
        }),
        binding('b', 'p', { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } }),
      );
      e = await refusal(clusterScoped.plugin.validate(attributesFor({ operation: 'CREATE', resource: 'namespaces', kind: 'Namespace', namespace: '', object: namespace('new') })));
      assert.match(e.message, /with binding 'b' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources$/);
    });
  });

  describe('failurePolicy', () => {
    it('Fail refuses on a compile error and on a runtime error; Ignore admits', async () => {
      const broken = [{ expression: 'object.spec.replicas <=' }];
      let c = await cluster(replicasPolicy('p', { validations: broken }), binding('b', 'p'));
      let e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 1))));
      assert.equal(e.code, 422);
      assert.match(e.message, /with binding 'b' denied request: compilation error: compilation failed: ERROR: <input>:1:\d+: /);
      c = await cluster(replicasPolicy('p', { validations: broken, failurePolicy: 'Ignore' }), binding('b', 'p'));
      await c.plugin.validate(deploymentRequest(deployment('d', 1)));

      c = await cluster(replicasPolicy('p', { validations: [{ expression: 'object.spec.nope > 1' }] }), binding('b', 'p'));
      e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 1))));
      assert.match(e.message, /denied request: expression 'object.spec.nope > 1' resulted in error: no such key: nope$/);
      c = await cluster(replicasPolicy('p', { validations: [{ expression: 'object.spec.nope > 1' }], failurePolicy: 'Ignore' }), binding('b', 'p'));
      await c.plugin.validate(deploymentRequest(deployment('d', 1)));
    });

    it('refuses an expression of the wrong type and params without paramKind', async () => {
      const c = await cluster(replicasPolicy('p', { validations: [{ expression: '1 + 2' }, { expression: 'params.x' }] }), binding('b', 'p', { validationActions: ['Warn'] }));
      const attributes = deploymentRequest(deployment('d', 1));
      await c.plugin.validate(attributes);
      assert.deepEqual(attributes.warnings, [
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': compilation error: must evaluate to bool but got int",
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
      ]);
    });
  });

  describe('matchConditions, variables and audit annotations', () => {
    it('a false match condition skips the policy; an erroring one follows failurePolicy', async () => {
      const conditions = [
        { name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" },
        { name: 'broken', expression: 'object.metadata.nope == 1' },
      ];
      let c = await cluster(replicasPolicy('p', { matchConditions: conditions }), binding('b', 'p'));
      await c.plugin.validate(deploymentRequest(deployment('d', 9, { exempt: 'x' })));
      const e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 1))));
      assert.match(e.message, /denied request: expression 'object.metadata.nope == 1' resulted in error: no such key: nope$/);
      c = await cluster(replicasPolicy('p', { matchConditions: conditions, failurePolicy: 'Ignore' }), binding('b', 'p'));
      await c.plugin.validate(deploymentRequest(deployment('d', 9)));
    });

    it('variables are computed when read, in order, and a failing one fails only the expressions reading it', async () => {
      const c = await cluster(
        policy('p', {
          variables: [
            { name: 'replicas', expression: 'object.spec.replicas' },
            { name: 'limit', expression: 'variables.replicas > 2 ? 5 : 1' },
            { name: 'broken', expression: 'object.spec.nope' },
          ],
          validations: [{ expression: 'variables.replicas <= variables.limit', messageExpression: '"limit is " + string(variables.limit)' }],
        }),
        binding('b', 'p'),
      );
      await c.plugin.validate(deploymentRequest(deployment('d', 4)));
      const e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 6))));
      assert.match(e.message, /denied request: limit is 5$/);
      const bad = await cluster(policy('p', { variables: [{ name: 'broken', expression: 'object.spec.nope' }], validations: [{ expression: 'variables.broken == 1' }] }), binding('b', 'p'));
      const e2 = await refusal(bad.plugin.validate(deploymentRequest(deployment('d', 1))));
      assert.match(e2.message, /resulted in error: composited variable "broken" fails to evaluate: no such key: nope$/);
    });

    it('publishes audit annotations as POLICY/KEY, leaves out null and empty values, and refuses other types', async () => {
      const c = await cluster(
        policy('p', {
          auditAnnotations: [
            { key: 'replicas', valueExpression: "'replicas: ' + string(object.spec.replicas)" },
            { key: 'none', valueExpression: 'null' },
            { key: 'blank', valueExpression: "'  '" },
          ],
        }),
        binding('b', 'p'),
      );
      const attributes = deploymentRequest(deployment('d', 4));
      await c.plugin.validate(attributes);
      assert.deepEqual(attributes.annotations, { 'p/replicas': 'replicas: 4' });
      const wrong = await cluster(policy('p', { auditAnnotations: [{ key: 'k', valueExpression: 'dyn(object.spec.replicas)' }] }), binding('b', 'p'));
      const e = await refusal(wrong.plugin.validate(deploymentRequest(deployment('d', 4))));
      assert.match(e.message, /denied request: valueExpression 'dyn\(object.spec.replicas\)' resulted in unsupported return type: int. Return type must be either string or null.$/);
    });

    it('exposes request, oldObject and namespaceObject as upstream', async () => {
      const c = await cluster(
        policy('p', {
          validations: [
            { expression: "request.userInfo.username == 'alice' && 'devs' in request.userInfo.groups", message: 'user' },
            { expression: "request.operation == 'CREATE' ? oldObject == null : oldObject.spec.replicas <= object.spec.replicas", message: 'no scale down' },
            { expression: "namespaceObject.metadata.labels.env == 'prod' && request.namespace == 'default'", message: 'namespace' },
            { expression: "request.kind.kind == 'Deployment' && request.resource.resource == 'deployments' && request.name == object.metadata.name && !request.dryRun", message: 'request' },
          ],
        }),
        binding('b', 'p'),
      );
      const alice = { name: 'alice', groups: ['devs'] };
      await c.plugin.validate(deploymentRequest(deployment('d', 4), { user: alice }));
      await c.plugin.validate(deploymentRequest(deployment('d', 4), { user: alice, operation: 'UPDATE', oldObject: deployment('d', 3) }));
      let e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 2), { user: alice, operation: 'UPDATE', oldObject: deployment('d', 3) })));
      assert.match(e.message, /no scale down$/);
      e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 4), { user: { name: 'bob', groups: [] } })));
      assert.match(e.message, /denied request: user$/);
      e = await refusal(c.plugin.validate(deploymentRequest(deployment('d', 4, { app: 'd' }, 'dev'), { user: alice })));
      assert.match(e.message, /denied request: namespace$/);
    });
  });
});
