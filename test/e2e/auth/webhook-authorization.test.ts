/**
 * Webhook authorization end to end: `k8ts apiserver --authorization-mode=
 * Webhook,RBAC` asks a real HTTPS authorizer on 127.0.0.1 (its certificate
 * from a CA the test makes) with SubjectAccessReview v1, and real kubectl as
 * user alice (a client certificate of the cluster CA) sees the answers: the
 * webhook's Allow lets `get pods` through, its Deny refuses `delete pods`
 * with its reason in the 403, its NoOpinion leaves the decision to RBAC, a
 * repeated request is answered from the cache without reaching the webhook,
 * and once the webhook is down its failure is no opinion: RBAC decides, and
 * with no Allow the failure is the 500 upstream gives.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueClientCertificate, issueServingCertificate, loadCertificateAuthority, newCertificateAuthority } from '../../../src/cmd/pki/certificates.js';
import { writeKubeconfig } from '../../../src/cmd/pki/kubeconfig.js';
import { runK8ts, startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';

interface ReviewSpec {
  user: string;
  groups?: string[];
  resourceAttributes?: { verb?: string; resource?: string; name?: string; namespace?: string };
  nonResourceAttributes?: { path?: string; verb?: string };
}

/** The test's authorizer: alice may get pods, may never delete them, and about the rest it has no opinion. */
interface Authorizer {
  readonly url: string;
  /** Reviews received, by `user verb resource name`. */
  readonly calls: Map<string, number>;
  readonly reviews: unknown[];
  close(): Promise<void>;
}

async function startAuthorizer(certPem: string, keyPem: string): Promise<Authorizer> {
  const calls = new Map<string, number>();
  const reviews: unknown[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { spec: ReviewSpec };
      reviews.push(review);
      const ra = review.spec.resourceAttributes;
      const key = ra !== undefined ? `${review.spec.user} ${ra.verb ?? ''} ${ra.resource ?? ''} ${ra.name ?? ''}` : `${review.spec.user} ${review.spec.nonResourceAttributes?.path ?? ''}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      let status: Record<string, unknown> = { allowed: false };
      if (review.spec.user === 'alice' && ra?.resource === 'pods' && ra.verb === 'get') status = { allowed: true, reason: 'alice may read pods' };
      if (review.spec.user === 'alice' && ra?.resource === 'pods' && ra.verb === 'delete') status = { allowed: false, denied: true, reason: 'alice may not delete pods' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status }));
    });
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed = false;
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    reviews,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function eventually(check: () => Promise<boolean>, description: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhook authorization with real kubectl', { timeout: 240_000 }, () => {
  let root = '';
  let apiserver: K8tsProcess | undefined;
  let authorizer: Authorizer;
  let admin: Kubectl;
  let alice: Kubectl;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-authz-webhook-'));
    const ca = await newCertificateAuthority({ commonName: 'authz-webhook-test-ca' });
    const serving = await issueServingCertificate(ca, { dnsNames: ['authz.test'], ipAddresses: ['127.0.0.1'] });
    authorizer = await startAuthorizer(serving.certPem, serving.keyPem);
    const webhookConfig = join(root, 'authz-webhook.kubeconfig');
    await writeFile(
      webhookConfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: authz',
        '  cluster:',
        `    certificate-authority-data: ${Buffer.from(ca.certPem).toString('base64')}`,
        `    server: ${authorizer.url}/authorize`,
        'users:',
        '- name: apiserver',
        '  user: {}',
        'contexts:',
        '- name: authz',
        '  context: {cluster: authz, user: apiserver}',
        'current-context: authz',
        '',
      ].join('\n'),
    );
    const dataDir = join(root, 'data');
    apiserver = startK8ts([
      'apiserver',
      '--data-dir', dataDir,
      '--secure-port', '0',
      '--bind-address', '127.0.0.1',
      '--advertise-address', '127.0.0.1',
      '--authorization-mode=Webhook,RBAC',
      `--authorization-webhook-config-file=${webhookConfig}`,
      '--authorization-webhook-version=v1',
    ]);
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    await apiserver.waitForLine(/^apiserver: serving on/, 60_000);
    admin = newKubectl('1.32', line.slice('export KUBECONFIG='.length).trim());
    const clusterCA = await readFile(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const cert = await issueClientCertificate(await loadCertificateAuthority(clusterCA, await readFile(join(dataDir, 'pki', 'ca.key'), 'utf8')), { commonName: 'alice', organizations: ['devs'] });
    const server = (await admin.ok('config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}')).trim();
    const aliceConfig = join(root, 'alice.kubeconfig');
    await writeKubeconfig(aliceConfig, { serverUrl: server, caCertPem: clusterCA, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem, userName: 'alice' });
    alice = newKubectl('1.32', aliceConfig);
    // The API server alone runs no ServiceAccount controller: the pod's service account is made here.
    await admin.ok('create', 'serviceaccount', 'default', '-n', 'default');
    await admin.ok('run', 'p1', '-n', 'default', '--image=nginx');
  });

  after(async () => {
    await apiserver?.stop();
    await authorizer?.close();
    if (root !== '') await rm(root, { recursive: true, force: true });
  });

  it("lets alice get a pod on the webhook's Allow, and sends upstream's SubjectAccessReview", async () => {
    const out = await alice.ok('get', 'pod', 'p1', '-n', 'default', '-o', 'jsonpath={.metadata.name}');
    assert.equal(out, 'p1');
    assert.equal(authorizer.calls.get('alice get pods p1'), 1);
    const review = authorizer.reviews.find((r) => (r as { spec: ReviewSpec }).spec.resourceAttributes?.name === 'p1') as { spec: { extra?: Record<string, string[]> } };
    // Upstream (1.32) names the client certificate in extra.
    assert.match(review.spec.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^X509SHA256=[0-9a-f]{64}$/);
    delete review.spec.extra;
    assert.deepEqual(review, {
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: { namespace: 'default', verb: 'get', version: 'v1', resource: 'pods', name: 'p1' },
        user: 'alice',
        groups: ['devs', 'system:authenticated'],
      },
      status: { allowed: false },
    });
  });

  it('answers a repeated request from the cache: the webhook is not asked again', async () => {
    await alice.ok('get', 'pod', 'p1', '-n', 'default');
    await alice.ok('get', 'pod', 'p1', '-n', 'default');
    assert.equal(authorizer.calls.get('alice get pods p1'), 1);
  });

  it("refuses delete on the webhook's Deny, with its reason in upstream's 403 message; the pod stays", async () => {
    const refused = await alice('delete', 'pod', 'p1', '-n', 'default');
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Error from server \(Forbidden\): pods "p1" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default": alice may not delete pods/,
    );
    assert.equal(await admin.ok('get', 'pod', 'p1', '-n', 'default', '-o', 'jsonpath={.metadata.name}'), 'p1');
  });

  it("leaves the decision to RBAC when the webhook has no opinion", async () => {
    const before = await alice('get', 'configmaps', '-n', 'default');
    assert.match(before.stderr, /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/);
    assert.ok((authorizer.calls.get('alice list configmaps ') ?? 0) >= 1, 'the webhook was asked first');
    await admin.ok('create', 'role', 'cm-reader', '-n', 'default', '--verb=list', '--resource=configmaps');
    await admin.ok('create', 'rolebinding', 'alice-cm', '-n', 'default', '--role=cm-reader', '--user=alice');
    await eventually(async () => (await alice('get', 'configmaps', '-n', 'default')).code === 0, 'RBAC to let alice list configmaps');
  });

  it('treats a webhook that is down as no opinion: RBAC decides, and without an Allow the failure is a 500', async () => {
    await authorizer.close();
    // Allowed by RBAC although the webhook cannot be reached.
    await alice.ok('get', 'configmaps', '-n', 'default', '--request-timeout=30s');
    // The cached Allow still holds.
    await alice.ok('get', 'pod', 'p1', '-n', 'default');
    // Neither the webhook nor RBAC allows: the webhook's failure makes the request a 500, as upstream.
    const secrets = await alice('get', 'secrets', '-n', 'default');
    assert.equal(secrets.code, 1);
    assert.match(secrets.stderr, /Error from server \(InternalError\)/);
  });

  it('refuses to start with mode Webhook but no config file, or with a config file that cannot be read', async () => {
    const missing = await runK8ts(['apiserver', '--data-dir', join(root, 'other'), '--secure-port', '0', '--authorization-mode=Webhook,RBAC']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.output, /authorization-mode Webhook's authorization config file not passed/);
    const unreadable = await runK8ts([
      'apiserver', '--data-dir', join(root, 'other'), '--secure-port', '0', '--authorization-mode=RBAC,Webhook', `--authorization-webhook-config-file=${join(root, 'nope.kubeconfig')}`,
    ]);
    assert.notEqual(unreadable.code, 0);
    assert.match(unreadable.output, /reading the authorization webhook config .*nope\.kubeconfig/);
  });
});
