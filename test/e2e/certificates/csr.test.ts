/**
 * The API side of TLS bootstrap, with real kubectl 1.32 against a real
 * `k8ts server --apiserver-arg=--enable-bootstrap-token-auth`: CSRs created,
 * listed, approved and denied as upstream shows them, bad ones refused with
 * upstream's messages, and a bootstrap token that authenticates as
 * system:bootstrap:<id>, may create a CSR once bound to
 * system:node-bootstrapper and nothing else, and is refused (401) once its
 * Secret expires or is deleted.
 *
 * The CSRs the admin makes use a signer of their own (example.com/…), so that
 * no controller of the controller manager acts on them.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { asBytes, makeCsr } from '../../../src/api/certificates/v1/testing/make-csr.js';
import { bootstrapTokenSecret, formatBootstrapToken, type BootstrapToken } from '../../../src/machinery/bootstrap-token.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

const SIGNER = 'example.com/test-signer';

/** `kubectl auth whoami`'s table as attribute → value. */
function whoami(output: string): Record<string, string> {
  const rows: Record<string, string> = {};
  for (const line of output.trim().split('\n').slice(1)) {
    const match = /^(.*?)\s{2,}(.*)$/.exec(line);
    if (match !== null) rows[match[1]!] = match[2]!;
  }
  return rows;
}

describe('certificate signing requests and bootstrap tokens', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let admin: Kubectl;

  const csrObject = (name: string, request: string, extra: { signerName?: string; usages?: string[]; expirationSeconds?: number; username?: string } = {}) => ({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request,
      signerName: extra.signerName ?? SIGNER,
      usages: extra.usages ?? ['client auth', 'digital signature'],
      ...(extra.expirationSeconds !== undefined ? { expirationSeconds: extra.expirationSeconds } : {}),
      ...(extra.username !== undefined ? { username: extra.username, groups: ['system:masters'] } : {}),
    },
  });
  const create = (as: Kubectl, kubeconfig: string, object: unknown) => withStdin(as, kubeconfig, JSON.stringify(object))('create', '-f', '-');

  /** A kubeconfig of the cluster whose user presents `token`. */
  async function tokenKubeconfig(name: string, token: string): Promise<string> {
    const config = parse(await readFile(cluster.kubeconfig, 'utf8')) as { users: { name: string; user: Record<string, string> }[] };
    const path = join(cluster.workDir, `${name}.kubeconfig`);
    await writeFile(path, stringify({ ...config, users: config.users.map((u) => ({ name: u.name, user: { token } })) }), { mode: 0o600 });
    return path;
  }
  async function newToken(id: string, options: { expires?: Date; extraGroups?: string[] } = {}): Promise<{ token: BootstrapToken; kubeconfig: string; kubectl: Kubectl }> {
    const token = { id, secret: `${id}0123456789`.slice(0, 16) };
    await create(admin, cluster.kubeconfig, bootstrapTokenSecret({ token, ...options })).then((r) => assert.equal(r.code, 0, r.stderr));
    const kubeconfig = await tokenKubeconfig(id, formatBootstrapToken(token));
    return { token, kubeconfig, kubectl: newKubectl('1.32', kubeconfig) };
  }
  /** Polls (the watch cache sees a change a moment after the write) until the token is refused with 401. */
  async function waitUnauthorized(kubectl: Kubectl): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await kubectl('auth', 'whoami');
      if (r.code !== 0) {
        assert.match(r.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
        return;
      }
      assert.ok(Date.now() < deadline, 'the token still works');
    }
  }

  before(async () => {
    cluster = await startCluster('csr', { serverArgs: ['--apiserver-arg=--enable-bootstrap-token-auth'], defaultServiceAccount: false });
    admin = newKubectl('1.32', cluster.kubeconfig);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('creates a CSR in the requestor’s name and lists it as upstream’s table', async () => {
    const { base64 } = await makeCsr({ commonName: 'alice', organizations: ['devs'] });
    const r = await create(admin, cluster.kubeconfig, csrObject('alice', base64, { expirationSeconds: 600, username: 'mallory' }));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'certificatesigningrequest.certificates.k8s.io/alice created');
    const spec = JSON.parse(await admin.ok('get', 'csr', 'alice', '-o', 'jsonpath={.spec}')) as { username: string; groups: string[] };
    assert.equal(spec.username, 'kubernetes-admin');
    assert.deepEqual(spec.groups, ['system:masters', 'system:authenticated']);
    const lines = (await admin.ok('get', 'csr', 'alice')).trim().split('\n');
    assert.match(lines[0]!, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
    assert.match(lines[1]!, /^alice\s+\d+s\s+example\.com\/test-signer\s+kubernetes-admin\s+10m\s+Pending$/);
  });

  it('approves and denies with kubectl certificate, through /approval', async () => {
    const { base64 } = await makeCsr({ commonName: 'bob' });
    assert.equal((await create(admin, cluster.kubeconfig, csrObject('bob', base64))).code, 0);
    assert.equal((await admin.ok('certificate', 'approve', 'alice')).trim(), 'certificatesigningrequest.certificates.k8s.io/alice approved');
    assert.equal((await admin.ok('certificate', 'deny', 'bob')).trim(), 'certificatesigningrequest.certificates.k8s.io/bob denied');
    const table = await admin.ok('get', 'csr', '--no-headers');
    assert.match(table, /^alice\s.*\sApproved$/m);
    assert.match(table, /^bob\s.*\s<none>\s+Denied$/m);
    const [condition] = JSON.parse(await admin.ok('get', 'csr', 'alice', '-o', 'jsonpath={.status.conditions}')) as Record<string, string>[];
    assert.equal(condition?.type, 'Approved');
    assert.equal(condition?.reason, 'KubectlApprove');
    assert.match(condition?.lastTransitionTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Approving again changes nothing; denying an approved request is refused by kubectl itself.
    assert.match(await admin.ok('certificate', 'approve', 'alice'), /approved/);
    const denied = await admin('certificate', 'deny', 'alice');
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /certificate signing request "alice" is already Approved/);
  });

  it('refuses invalid requests with upstream messages', async () => {
    const bad = await create(admin, cluster.kubeconfig, csrObject('bad', asBytes('not a csr'), { expirationSeconds: 60, usages: ['flying'], signerName: 'nodomain' }));
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /The CertificateSigningRequest "bad" is invalid: /);
    assert.match(bad.stderr, /spec\.request: Invalid value: "bm90IGEgY3Ny": PEM block type must be CERTIFICATE REQUEST/);
    assert.match(bad.stderr, /spec\.usages\[0\]: Unsupported value: "flying": supported values: "any", "cert sign"/);
    assert.match(bad.stderr, /spec\.signerName: Invalid value: "nodomain": must be a fully qualified domain and path of the form 'example\.com\/signer-name'/);
    assert.match(bad.stderr, /spec\.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds \(10 minutes\)/);
    const masters = await makeCsr({ commonName: 'root', organizations: ['system:masters'] });
    const restricted = await create(admin, cluster.kubeconfig, csrObject('root', masters.base64, { signerName: 'kubernetes.io/kube-apiserver-client' }));
    assert.notEqual(restricted.code, 0);
    assert.match(
      restricted.stderr,
      /Error from server \(Forbidden\): error when creating "STDIN": certificatesigningrequests\.certificates\.k8s\.io "root" is forbidden: use of kubernetes\.io\/kube-apiserver-client signer with system:masters group is not allowed/,
    );
    assert.notEqual((await admin('get', 'csr', 'bad')).code, 0, 'nothing was stored');
  });

  it('authenticates a bootstrap token as system:bootstrap:<id>, which may create a CSR once bound to system:node-bootstrapper and nothing else', async () => {
    // Not in k8ts server's join-token group (system:bootstrappers:k8ts:default-node-token), which it binds to system:node-bootstrapper itself.
    const { kubeconfig, kubectl } = await newToken('abcdef', { extraGroups: ['system:bootstrappers:e2e'] });
    const rows = whoami(await kubectl.ok('auth', 'whoami'));
    assert.equal(rows['Username'], 'system:bootstrap:abcdef');
    assert.equal(rows['Groups'], '[system:bootstrappers system:bootstrappers:e2e system:authenticated]');

    const node = await makeCsr({ commonName: 'system:node:worker', organizations: ['system:nodes'] });
    const nodeCsr = csrObject('node-csr-abcdef', node.base64, { signerName: 'kubernetes.io/kube-apiserver-client-kubelet' });
    const before = await create(kubectl, kubeconfig, nodeCsr);
    assert.notEqual(before.code, 0);
    assert.match(before.stderr, /User "system:bootstrap:abcdef" cannot create resource "certificatesigningrequests" in API group "certificates\.k8s\.io" at the cluster scope/);
    await admin.ok('create', 'clusterrolebinding', 'test-node-bootstrapper', '--clusterrole=system:node-bootstrapper', '--group=system:bootstrappers');
    const created = await create(kubectl, kubeconfig, nodeCsr);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(await admin.ok('get', 'csr', 'node-csr-abcdef', '-o', 'jsonpath={.spec.username}'), 'system:bootstrap:abcdef');

    const secrets = await kubectl('get', 'secrets', '-n', 'kube-system');
    assert.match(secrets.stderr, /Error from server \(Forbidden\): secrets is forbidden: User "system:bootstrap:abcdef" cannot list resource "secrets" in API group "" in the namespace "kube-system"/);
    const { base64 } = await makeCsr({ commonName: 'carol' });
    assert.equal((await create(admin, cluster.kubeconfig, csrObject('carol', base64))).code, 0);
    const approve = await kubectl('certificate', 'approve', 'carol');
    assert.match(approve.stderr, /User "system:bootstrap:abcdef" cannot update resource "certificatesigningrequests\/approval" in API group "certificates\.k8s\.io" at the cluster scope/);

    // Allowed to write /approval by RBAC, the bootstrapper still needs `approve` on the signer: CertificateApproval refuses.
    await admin.ok('create', 'clusterrole', 'test-csr-approval-writer', '--verb=update', '--resource=certificatesigningrequests/approval');
    await admin.ok('create', 'clusterrolebinding', 'test-csr-approval-writer', '--clusterrole=test-csr-approval-writer', '--group=system:bootstrappers');
    const notPermitted = await kubectl('certificate', 'approve', 'carol');
    assert.notEqual(notPermitted.code, 0);
    assert.match(notPermitted.stderr, /certificatesigningrequests\.certificates\.k8s\.io "carol" is forbidden: user not permitted to approve requests with signerName "example\.com\/test-signer"/);
  });

  it('refuses a bootstrap token (401) once its Secret has expired or is deleted', async () => {
    const expiring = await newToken('expire', { expires: new Date(Date.now() + 3_600_000) });
    assert.equal(whoami(await expiring.kubectl.ok('auth', 'whoami'))['Username'], 'system:bootstrap:expire');
    const past = Buffer.from(new Date(Date.now() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')).toString('base64');
    await admin.ok('patch', 'secret', '-n', 'kube-system', 'bootstrap-token-expire', '--type=merge', '-p', JSON.stringify({ data: { expiration: past } }));
    await waitUnauthorized(expiring.kubectl);

    const deleted = await newToken('delete');
    assert.equal(whoami(await deleted.kubectl.ok('auth', 'whoami'))['Username'], 'system:bootstrap:delete');
    await admin.ok('delete', 'secret', '-n', 'kube-system', 'bootstrap-token-delete');
    await waitUnauthorized(deleted.kubectl);
  });
});
