/**
 * ValidatingAdmissionPolicy through real kubectl against the API server as
 * `k8ts server` runs it (lean-cluster.ts; the plugin is on by default, as upstream): the documentation's demo policy
 * `object.spec.replicas <= 5` with a Deny binding for namespaces labelled
 * environment=test refuses six replicas with upstream's message and admits
 * three; a Warn binding makes kubectl print the policy's warning. A policy
 * takes effect once the plugin's watch delivers it, so each step first polls
 * with a server-side dry run (admitted like a real create, stored nowhere).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl, type KubectlResult } from '../testing/kubectl.js';

const DENY_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo-policy.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-test.example.com
spec:
  policyName: demo-policy.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`;

const WARN_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: few-replicas.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 2"
    messageExpression: "'deployment ' + object.metadata.name + ' asks for ' + string(object.spec.replicas) + ' replicas'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: few-replicas-warn.example.com
spec:
  policyName: few-replicas.example.com
  validationActions: [Warn]
`;

const DENIED =
  'error: failed to create deployment: deployments.apps "nginx" is forbidden: ' +
  "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5";

/** Repeat `attempt` until `done` holds for its result (the plugin's watch has delivered), or fail after a deadline. */
async function until(what: string, attempt: () => Promise<KubectlResult>, done: (r: KubectlResult) => boolean): Promise<KubectlResult> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await attempt();
    if (done(r)) return r;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('ValidatingAdmissionPolicy', { timeout: 180_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;

  before(async () => {
    cluster = await startLeanCluster('vap');
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    await kubectl.ok('create', 'namespace', 'vap-test');
    await kubectl.ok('label', 'namespace', 'vap-test', 'environment=test');
  });
  after(async () => {
    await cluster?.stop();
  });

  it("a Deny binding refuses 6 replicas with upstream's message, admits 3, and refuses an update to 7", async () => {
    await withStdin(kubectl, cluster.kubeconfig, DENY_POLICY).ok('apply', '-f', '-');
    await until(
      'the policy takes effect',
      () => kubectl('create', 'deployment', 'probe', '--image=nginx', '--replicas=6', '-n', 'vap-test', '--dry-run=server'),
      (r) => r.code !== 0,
    );
    const refused = await kubectl('create', 'deployment', 'nginx', '--image=nginx', '--replicas=6', '-n', 'vap-test');
    assert.notEqual(refused.code, 0);
    assert.equal(refused.stderr.trim(), DENIED);
    assert.equal((await kubectl('get', 'deployment', 'nginx', '-n', 'vap-test')).code, 1, 'nothing stored');
    await kubectl.ok('create', 'deployment', 'nginx', '--image=nginx', '--replicas=3', '-n', 'vap-test');
    await kubectl.ok('create', 'deployment', 'elsewhere', '--image=nginx', '--replicas=6', '-n', 'default');
    const patched = await kubectl('patch', 'deployment', 'nginx', '-n', 'vap-test', '--type=merge', '-p', '{"spec":{"replicas":7}}');
    assert.notEqual(patched.code, 0, 'an update is refused too');
    assert.match(patched.stderr, /ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5/);
  });

  it("a Warn binding admits and kubectl prints the policy's warning", async () => {
    await withStdin(kubectl, cluster.kubeconfig, WARN_POLICY).ok('apply', '-f', '-');
    const warning = "Warning: Validation failed for ValidatingAdmissionPolicy 'few-replicas.example.com' with binding 'few-replicas-warn.example.com': deployment probe asks for 3 replicas";
    await until(
      'the warning policy takes effect',
      () => kubectl('create', 'deployment', 'probe', '--image=nginx', '--replicas=3', '-n', 'default', '--dry-run=server'),
      (r) => r.stderr.includes(warning),
    );
    const r = await kubectl('create', 'deployment', 'warned', '--image=nginx', '--replicas=3', '-n', 'default');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'few-replicas.example.com' with binding 'few-replicas-warn.example.com': deployment warned asks for 3 replicas/);
    assert.match(r.stdout, /deployment.apps\/warned created/);
  });
});
