/**
 * Authorization end to end, with real kubectl against `k8ts server` (RBAC):
 * identities by impersonation from the admin (system:masters) certificate,
 * anonymous requests with curl.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { issueClientCertificate, loadCertificateAuthority } from '../../../src/cmd/pki/certificates.js';
import { writeKubeconfig } from '../../../src/cmd/pki/kubeconfig.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';

function curl(url: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sk', '-w', '\n%{http_code}', url], { timeout: 30_000 }, (error, stdout) => {
      if (error !== null) return reject(error);
      const at = stdout.lastIndexOf('\n');
      resolve({ code: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) });
    });
  });
}

/** Polls `check` until it holds (watch-fed RBAC policy: a change is seen within moments). */
async function eventually(check: () => Promise<boolean>, description: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('authorization (RBAC) with real kubectl', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let server = '';

  before(async () => {
    cluster = await startCluster('authz');
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    server = (await kubectl.ok('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}')).trim();
  });

  after(async () => {
    await cluster?.stop();
  });

  it('refuses a user without bindings with upstream 403 messages, and stores nothing', async () => {
    const list = await kubectl('get', 'pods', '-n', 'default', '--as', 'alice');
    assert.equal(list.code, 1);
    assert.match(list.stderr, /Error from server \(Forbidden\): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"/);
    const node = await kubectl('get', 'node', 'n1', '--as', 'bob');
    assert.match(node.stderr, /nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope/);
    const create = await kubectl('create', 'configmap', 'sneaky', '-n', 'default', '--from-literal=a=b', '--as', 'alice');
    assert.match(create.stderr, /configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"/);
    const stored = await kubectl('get', 'configmap', 'sneaky', '-n', 'default');
    assert.match(stored.stderr, /NotFound/);
  });

  it('a RoleBinding takes effect without a restart', async () => {
    await kubectl.ok('create', 'role', 'pod-reader', '-n', 'default', '--verb=get,list,watch', '--resource=pods');
    await kubectl.ok('create', 'rolebinding', 'alice-reads-pods', '-n', 'default', '--role=pod-reader', '--user=alice');
    await eventually(async () => (await kubectl('get', 'pods', '-n', 'default', '--as', 'alice')).code === 0, 'alice to list pods');
    assert.equal((await kubectl('get', 'pods', '-n', 'kube-system', '--as', 'alice')).code, 1);
    await kubectl.ok('delete', 'rolebinding', 'alice-reads-pods', '-n', 'default');
    await eventually(async () => (await kubectl('get', 'pods', '-n', 'default', '--as', 'alice')).code !== 0, 'alice to lose pods');
  });

  it('kubectl auth can-i answers as upstream, with --as, --as-group, subresources, paths and --list', async () => {
    await kubectl.ok('create', 'rolebinding', 'alice-edit', '-n', 'default', '--clusterrole=edit', '--user=alice');
    await eventually(async () => (await kubectl('auth', 'can-i', 'create', 'deployments', '-n', 'default', '--as', 'alice')).stdout === 'yes\n', 'edit to apply');
    const no = await kubectl('auth', 'can-i', 'create', 'deployments', '-n', 'kube-system', '--as', 'alice');
    assert.deepEqual([no.code, no.stdout], [1, 'no\n']);
    assert.equal(await kubectl.ok('auth', 'can-i', 'create', 'pods', '--subresource=eviction', '-n', 'default', '--as', 'alice'), 'yes\n');
    assert.equal((await kubectl('auth', 'can-i', 'create', 'roles', '-n', 'default', '--as', 'alice')).stdout, 'no\n');
    assert.equal(await kubectl.ok('auth', 'can-i', 'get', '/healthz', '--as', 'alice'), 'yes\n');
    assert.equal((await kubectl('auth', 'can-i', 'get', '/metrics', '--as', 'alice')).stdout, 'no\n');
    assert.equal(await kubectl.ok('auth', 'can-i', 'delete', 'nodes', '--as', 'alice', '--as-group', 'system:masters'), 'yes\n');
    assert.equal(await kubectl.ok('auth', 'can-i', '*', '*'), 'yes\n');
    const list = await kubectl.ok('auth', 'can-i', '--list', '-n', 'default', '--as', 'alice');
    assert.match(list, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    assert.match(list, /\ndeployments\.apps\s+\[\]\s+\[\]\s+\[create delete deletecollection patch update get list watch\]\n/);
    assert.match(list, /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
    assert.match(list, /\n\s+\[\/healthz\]\s+\[\]\s+\[get\]/);
  });

  it('a SubjectAccessReview answers with the binding that allows', async () => {
    // --validate=false: kubectl's client-side validation of create-only kinds (Binding too) does not find them in our /openapi/v2 yet.
    const sar = join(cluster.workDir, 'sar.yaml');
    await writeFile(sar, 'apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: alice\n  resourceAttributes: {verb: update, group: apps, resource: deployments, namespace: default}\n');
    const out = JSON.parse(await kubectl.ok('create', '-f', sar, '-o', 'json', '--validate=false')) as { status: { allowed: boolean; reason: string } };
    assert.deepEqual(out.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-edit/default" of ClusterRole "edit" to User "alice"' });
  });

  it('refuses an escalation: a role with rules one does not hold, or a binding to a bigger role', async () => {
    await kubectl.ok('create', 'rolebinding', 'alice-admin', '-n', 'default', '--clusterrole=admin', '--user=alice');
    await eventually(async () => (await kubectl('auth', 'can-i', 'create', 'roles', '-n', 'default', '--as', 'alice')).stdout === 'yes\n', 'admin to apply');
    assert.match(await kubectl.ok('create', 'role', 'fine', '-n', 'default', '--verb=get', '--resource=pods', '--as', 'alice'), /role.rbac.authorization.k8s.io\/fine created/);
    const role = await kubectl('create', 'role', 'nodes', '-n', 'default', '--verb=get', '--resource=nodes', '--as', 'alice');
    assert.equal(role.code, 1);
    assert.match(role.stderr, /roles.rbac.authorization.k8s.io "nodes" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get"\]\}/);
    const binding = await kubectl('create', 'rolebinding', 'grab', '-n', 'default', '--clusterrole=cluster-admin', '--user=alice', '--as', 'alice');
    assert.match(binding.stderr, /rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "alice" .* is attempting to grant RBAC permissions not currently held/);
    assert.match((await kubectl('get', 'rolebinding', 'grab', '-n', 'default')).stderr, /NotFound/);
  });

  it('impersonation needs the impersonate verb', async () => {
    // The admin (system:masters) may impersonate anyone; the impersonated user then has only their own rights.
    const carol = await kubectl('get', 'pods', '-n', 'default', '--as', 'carol', '--as-group', 'whoever');
    assert.match(carol.stderr, /pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "default"/);
    // alice, with her own certificate (edit in default), may impersonate the service accounts of default only.
    const dataDir = join(cluster.workDir, 'data');
    const ca = await loadCertificateAuthority(await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8'), await readFile(join(dataDir, 'pki', 'ca.key'), 'utf8'));
    const cert = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['devs'] });
    const aliceConfig = join(cluster.workDir, 'alice.kubeconfig');
    const caCertPem = await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    await writeKubeconfig(aliceConfig, { serverUrl: server, caCertPem, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, userName: 'alice' });
    const asAlice = newKubectl('1.32', aliceConfig);
    assert.equal((await asAlice('auth', 'can-i', 'get', 'pods', '-n', 'default')).stdout, 'yes\n');
    const refused = await asAlice('get', 'pods', '-n', 'default', '--as', 'bob');
    assert.match(refused.stderr, /users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/);
    const sa = await asAlice('auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', 'system:serviceaccount:default:default');
    assert.deepEqual([sa.stdout, sa.stderr], ['no\n', '']);
    const elsewhere = await asAlice('get', 'pods', '-n', 'default', '--as', 'system:serviceaccount:kube-system:default');
    assert.match(elsewhere.stderr, /serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"/);
  });

  it('the components keep their rights: scheduler and controller manager', async () => {
    const pki = join(cluster.workDir, 'data', 'pki');
    const scheduler = newKubectl('1.32', join(pki, 'scheduler.kubeconfig'));
    assert.equal(await scheduler.ok('auth', 'can-i', 'create', 'pods', '--subresource=binding', '-n', 'default'), 'yes\n');
    assert.equal((await scheduler('auth', 'can-i', 'create', 'pods', '--subresource=eviction', '-n', 'default')).stdout, 'no\n');
    assert.equal(await scheduler.ok('auth', 'can-i', 'watch', 'nodes'), 'yes\n');
    assert.equal((await scheduler('auth', 'can-i', 'delete', 'nodes')).stdout, 'no\n');
    const manager = newKubectl('1.32', join(pki, 'controller-manager.kubeconfig'));
    assert.equal(await manager.ok('auth', 'can-i', 'create', 'replicasets.apps', '-n', 'default'), 'yes\n');
    assert.equal(await manager.ok('auth', 'can-i', 'update', 'namespaces', '--subresource=finalize'), 'yes\n');
    assert.equal((await manager('auth', 'can-i', 'create', 'clusterrolebindings')).stdout, 'no\n');
  });

  it('anonymous: /healthz is public, /api is refused', async () => {
    const health = await curl(`${server}/healthz`);
    assert.deepEqual([health.code, health.body], [200, 'ok']);
    const api = await curl(`${server}/api`);
    // Until anonymous authentication lands (issue 6, authentication), the authenticator answers 401 itself.
    assert.ok(api.code === 403 || api.code === 401, `code ${api.code}`);
    if (api.code === 403) {
      const status = JSON.parse(api.body) as { reason: string; message: string };
      assert.deepEqual([status.reason, status.message], ['Forbidden', 'forbidden: User "system:anonymous" cannot get path "/api"']);
    }
  });
});
