/**
 * The small built-in admission plugins, through real kubectl against
 * `k8ts apiserver` configured as `k8ts server` runs it (lean-cluster.ts; no
 * controller is involved): NamespaceLifecycle keeps the cluster's own namespaces,
 * DefaultTolerationSeconds gives pods five minutes on a failed node, Priority
 * turns a PriorityClass name into a number; and --disable-admission-plugins
 * switches one off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';
import { ensureDefaultServiceAccount } from '../testing/service-accounts.js';

const POD = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${extra}  containers:
  - name: c
    image: busybox
`;

describe('built-in admission plugins', { timeout: 180_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;

  before(async () => {
    cluster = await startLeanCluster('admission');
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    // A pod goes into kube-system below; no ServiceAccount controller runs here to make its `default`.
    await ensureDefaultServiceAccount(kubectl, 'kube-system');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('NamespaceLifecycle refuses to delete the cluster\'s own namespaces', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const r = await kubectl('delete', 'namespace', ns, '--wait=false');
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`namespaces "${ns}" is forbidden: this namespace may not be deleted`));
    }
    await kubectl.ok('get', 'namespace', 'default');
  });

  it('DefaultTolerationSeconds adds the not-ready and unreachable tolerations', async () => {
    await withStdin(kubectl, cluster.kubeconfig, POD('tolerant')).ok('apply', '-f', '-');
    const tolerations = JSON.parse(await kubectl.ok('get', 'pod', 'tolerant', '-o', 'jsonpath={.spec.tolerations}')) as unknown[];
    assert.deepEqual(tolerations, [
      { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
      { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
    ]);
  });

  it('Priority sets the number of the named class and refuses an unknown one', async () => {
    await kubectl.ok('create', 'priorityclass', 'important', '--value=1000', '--preemption-policy=Never');
    await withStdin(kubectl, cluster.kubeconfig, POD('vip', '  priorityClassName: important\n')).ok('apply', '-f', '-');
    assert.equal(await kubectl.ok('get', 'pod', 'vip', '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}'), '1000 Never');
    const r = await withStdin(kubectl, cluster.kubeconfig, POD('nobody', '  priorityClassName: missing\n'))('apply', '-f', '-');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /pods "nobody" is forbidden: no PriorityClass with name missing was found/);
    assert.equal((await kubectl('get', 'pod', 'nobody')).code, 1, 'nothing stored');
    const critical = await withStdin(kubectl, cluster.kubeconfig, POD('critical', '  priorityClassName: system-node-critical\n'))('apply', '-f', '-', '-n', 'kube-system');
    assert.equal(critical.code, 0, critical.stderr);
    assert.equal(await kubectl.ok('get', 'pod', 'critical', '-n', 'kube-system', '-o', 'jsonpath={.spec.priority}'), '2000001000');
  });
});

describe('--disable-admission-plugins', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startLeanCluster('admission-off', { apiserverArgs: ['--disable-admission-plugins=DefaultTolerationSeconds,NamespaceLifecycle'] });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('switches plugins off: no default tolerations, and content may be created in a missing namespace, as upstream', async () => {
    const kubectl = newKubectl('1.32', cluster.kubeconfig);
    await withStdin(kubectl, cluster.kubeconfig, POD('plain')).ok('apply', '-f', '-');
    assert.equal(await kubectl.ok('get', 'pod', 'plain', '-o', 'jsonpath={.spec.tolerations}'), '');
    await kubectl.ok('create', 'configmap', 'orphan', '-n', 'never-created');
    assert.equal(await kubectl.ok('get', 'configmap', 'orphan', '-n', 'never-created', '-o', 'name'), 'configmap/orphan\n');
  });
});
