/**
 * The Node authorizer and NodeRestriction end to end: a `k8ts server` with its
 * defaults (--authorization-mode=Node,RBAC, NodeRestriction on), and real
 * kubectl 1.32 with the kubelet's own kubeconfig (CN=system:node:<host>,
 * O=system:nodes). The kubelet reads a secret only once a pod bound to it
 * names it, registers and labels its own Node within the kubelet's label set,
 * and may not touch another node.
 */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Node authorization and NodeRestriction', { timeout: 240_000 }, () => {
  const node = hostname();
  let cluster: TestCluster;
  let admin: Kubectl;
  let kubelet: Kubectl;
  let kubeletConfig: string;

  before(async () => {
    cluster = await startCluster('node-authz');
    admin = newKubectl('1.32', cluster.kubeconfig);
    kubeletConfig = join(cluster.workDir, 'data', 'pki', 'kubelet.kubeconfig');
    kubelet = newKubectl('1.32', kubeletConfig);
    await admin.ok('create', 'secret', 'generic', 'referenced', '-n', 'default', '--from-literal=k=v');
    await admin.ok('create', 'secret', 'generic', 'unreferenced', '-n', 'default', '--from-literal=k=v');
  });

  after(async () => {
    await cluster?.stop();
  });

  it('lets the kubelet read a secret once a pod bound to its node names it, and refuses the others with upstream\'s message', async () => {
    const before = await kubelet('get', 'secret', 'referenced', '-n', 'default', '-o', 'name');
    assert.equal(before.code, 1, 'no pod names it yet');
    const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: uses-secret, namespace: default}\nspec:\n  nodeName: ${node}\n  containers: [{name: c, image: busybox}]\n  volumes: [{name: s, secret: {secretName: referenced}}]\n`;
    await withStdin(admin, cluster.kubeconfig, pod).ok('create', '-f', '-');
    await eventually(async () => (await kubelet('get', 'secret', 'referenced', '-n', 'default', '-o', 'name')).code === 0, 'the kubelet to read its pod\'s secret');
    const denied = await kubelet('get', 'secret', 'unreferenced', '-n', 'default');
    assert.equal(denied.code, 1);
    assert.equal(
      denied.stderr.trim(),
      `Error from server (Forbidden): secrets "unreferenced" is forbidden: User "system:node:${node}" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node '${node}' and this object`,
    );
    assert.equal((await kubelet('get', 'pod', 'uses-secret', '-n', 'default', '-o', 'name')).stdout, 'pod/uses-secret\n');
  });

  it('lets the kubelet register and label its own Node within the kubelet\'s label set, and refuses a restricted label', async () => {
    await withStdin(kubelet, kubeletConfig, `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${node}\n  labels: {kubernetes.io/hostname: ${node}}\n`).ok('create', '-f', '-');
    await kubelet.ok('label', 'node', node, 'kubelet.kubernetes.io/role=worker', 'example.com/team=blue');
    const labels = JSON.parse(await admin.ok('get', 'node', node, '-o', 'jsonpath={.metadata.labels}')) as Record<string, string>;
    assert.equal(labels['kubelet.kubernetes.io/role'], 'worker');
    assert.equal(labels['example.com/team'], 'blue');
    const refused = await kubelet('label', 'node', node, 'node-restriction.kubernetes.io/secure=true');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`nodes "${node}" is forbidden: is not allowed to modify labels: node-restriction\\.kubernetes\\.io/secure`));
  });

  it('lets the kubelet do its daily work: its lease, its Node\'s and pods\' status, events', async () => {
    const lease = `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: ${node}, namespace: kube-node-lease}\nspec: {holderIdentity: ${node}, leaseDurationSeconds: 40}\n`;
    await withStdin(kubelet, kubeletConfig, lease).ok('create', '-f', '-');
    await kubelet.ok('patch', 'lease', node, '-n', 'kube-node-lease', '--type=merge', '-p', `{"spec":{"renewTime":"${new Date().toISOString().replace(/\.\d+Z$/, '.000000Z')}"}}`);
    // Status is written without reading it first, as a kubelet does (`kubectl patch --subresource=status` would get it, which nodes may not).
    const nodeStatus = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node }, status: { capacity: { pods: '110' } } });
    await withStdin(kubelet, kubeletConfig, nodeStatus).ok('replace', '--raw', `/api/v1/nodes/${node}/status`, '-f', '-');
    const pod = JSON.parse(await kubelet.ok('get', 'pod', 'uses-secret', '-n', 'default', '-o', 'json')) as { status?: Record<string, unknown> };
    pod.status = { ...pod.status, phase: 'Running' };
    await withStdin(kubelet, kubeletConfig, JSON.stringify(pod)).ok('replace', '--raw', '/api/v1/namespaces/default/pods/uses-secret/status', '-f', '-');
    assert.equal(await admin.ok('get', 'pod', 'uses-secret', '-n', 'default', '-o', 'jsonpath={.status.phase}'), 'Running');
    const event = `apiVersion: v1\nkind: Event\nmetadata: {name: started, namespace: default}\ninvolvedObject: {kind: Pod, name: uses-secret, namespace: default}\nreason: Started\nmessage: started\nsource: {component: kubelet, host: ${node}}\ntype: Normal\n`;
    await withStdin(kubelet, kubeletConfig, event).ok('create', '-f', '-');
    const otherLease = await withStdin(kubelet, kubeletConfig, lease.replace(`name: ${node},`, 'name: someone-else,'))('create', '-f', '-');
    assert.equal(otherLease.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": leases.coordination.k8s.io "someone-else" is forbidden: can only access node lease with the same name as the requesting node');
  });

  it('refuses any change to another node, with upstream\'s message', async () => {
    await withStdin(admin, cluster.kubeconfig, 'apiVersion: v1\nkind: Node\nmetadata: {name: other-node}\n').ok('create', '-f', '-');
    // A raw PUT: `kubectl patch` and `label` read the object first, which the authorizer refuses before NodeRestriction sees anything.
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'other-node', labels: { team: 'red' } } });
    const replaced = await withStdin(kubelet, kubeletConfig, body)('replace', '--raw', '/api/v1/nodes/other-node', '-f', '-');
    assert.equal(replaced.code, 1);
    assert.equal(replaced.stderr.trim(), `Error from server (Forbidden): nodes "other-node" is forbidden: node "${node}" is not allowed to modify node "other-node"`);
    const read = await kubelet('get', 'node', 'other-node');
    assert.match(read.stderr, new RegExp(`nodes "other-node" is forbidden: User "system:node:${node}" cannot get resource "nodes" in API group "" at the cluster scope: node '${node}' cannot read 'other-node', only its own Node object`));
    assert.equal(await admin.ok('get', 'node', 'other-node', '-o', 'jsonpath={.metadata.labels.team}'), '');
  });
});
