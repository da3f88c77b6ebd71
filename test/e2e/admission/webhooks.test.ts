/**
 * Dynamic admission end to end: real kubectl against the API server as `k8ts server` runs it (lean-cluster.ts), and real
 * HTTPS webhook servers on 127.0.0.1 with a certificate from a CA of the
 * test's own. A mutating webhook's JSONPatch is stored; a validating webhook's
 * refusal reaches kubectl with its message; webhooks that hang or reset the
 * connection block requests under failurePolicy Fail and let them through
 * under Ignore; and the server keeps serving other clients meanwhile.
 *
 * Each webhook is scoped by an objectSelector (label `hook`) so that the
 * tests do not see each other's webhooks. A configuration takes effect once
 * the API server's watch delivers it, so each test creates objects until its
 * webhook has been called, then judges the attempt it was called for.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { issueServingCertificate, newCertificateAuthority } from '../../../src/cmd/pki/certificates.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl, type KubectlResult } from '../testing/kubectl.js';

interface Review {
  request: { uid: string; name?: string; object: { metadata: { labels?: Record<string, string> } } };
}

/** One HTTPS server, one path per webhook behaviour; counts calls per path. */
interface WebhookServer {
  readonly url: string;
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

async function startWebhookServer(certPem: string, keyPem: string): Promise<WebhookServer> {
  const calls = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      calls.set(path, (calls.get(path) ?? 0) + 1);
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      const answer = (response: Record<string, unknown>): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } }));
      };
      switch (path) {
        case '/mutate':
          answer({
            allowed: true,
            patchType: 'JSONPatch',
            patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/injected', value: 'by-webhook' }])).toString('base64'),
            warnings: ['mutated by the test webhook'],
          });
          return;
        case '/deny':
          answer({ allowed: false, status: { code: 403, reason: 'Forbidden', message: `${review.request.name ?? ''} is not welcome here` } });
          return;
        case '/hang':
          return; // never answers
        case '/crash':
          req.socket.destroy();
          return;
        default:
          answer({ allowed: true });
      }
    });
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('dynamic admission webhooks', { timeout: 300_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let webhooks: WebhookServer;
  let caBundle: string;
  let counter = 0;

  before(async () => {
    const ca = await newCertificateAuthority({ commonName: 'webhook-test-ca' });
    const serving = await issueServingCertificate(ca, { dnsNames: ['webhook.test.svc'], ipAddresses: ['127.0.0.1'] });
    caBundle = Buffer.from(ca.certPem).toString('base64');
    webhooks = await startWebhookServer(serving.certPem, serving.keyPem);
    cluster = await startLeanCluster('webhooks');
    kubectl = newKubectl('1.32', cluster.kubeconfig);
  });
  after(async () => {
    await cluster?.stop();
    await webhooks?.close();
  });

  const stdin = (yaml: string): Kubectl => withStdin(kubectl, cluster.kubeconfig, yaml);

  function configuration(kind: 'Mutating' | 'Validating', name: string, path: string, extra: string): string {
    return `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: ${name}.k8ts.test
  clientConfig:
    url: ${webhooks.url}${path}
    caBundle: ${caBundle}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  objectSelector:
    matchLabels:
      hook: ${name}
  sideEffects: None
  admissionReviewVersions: ["v1"]
${extra}`;
  }

  function configMap(hook: string): { name: string; yaml: string } {
    counter += 1;
    const name = `${hook}-${counter}`;
    return { name, yaml: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n    hook: ${hook}\ndata:\n  k: v\n` };
  }

  /** Create config maps labelled for `hook` until the webhook at `path` has been called; the attempt it was called for. */
  async function createSeenBy(hook: string, path: string): Promise<{ name: string; result: KubectlResult }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const before = webhooks.calls.get(path) ?? 0;
      const cm = configMap(hook);
      const result = await stdin(cm.yaml)('create', '-f', '-');
      if ((webhooks.calls.get(path) ?? 0) > before) return { name: cm.name, result };
      if (Date.now() > deadline) throw new Error(`webhook ${path} was never called: last attempt ${result.code} ${result.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('serves the configurations with upstream columns', async () => {
    await stdin(configuration('Validating', 'allow-all', '/allow', '')).ok('create', '-f', '-');
    const table = await kubectl.ok('get', 'validatingwebhookconfigurations');
    assert.match(table, /^NAME\s+WEBHOOKS\s+AGE\n/);
    assert.match(table, /\nallow-all\s+1\s+\S+\n/);
    const stored = JSON.parse(await kubectl.ok('get', 'validatingwebhookconfiguration', 'allow-all', '-o', 'json')) as { webhooks: Record<string, unknown>[] };
    const hook = stored.webhooks[0]!;
    assert.equal(hook.failurePolicy, 'Fail');
    assert.equal(hook.matchPolicy, 'Equivalent');
    assert.equal(hook.timeoutSeconds, 10);
    assert.deepEqual(hook.namespaceSelector, {});
    const bad = await stdin(configuration('Validating', 'no-side-effects', '/allow', '').replace('  sideEffects: None\n', ''))('create', '-f', '-');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /webhooks\[0\]\.sideEffects: Required value: must specify one of None, NoneOnDryRun/);
  });

  it('serves ValidatingAdmissionPolicies and their bindings as kubectl prints them (enforcement: validating-admission-policy.test.ts)', async () => {
    await stdin(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  matchConstraints:
    resourceRules:
    - operations: ["CREATE", "UPDATE"]
      apiGroups: ["apps"]
      apiVersions: ["v1"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
`).ok('create', '-f', '-');
    assert.match(await kubectl.ok('get', 'validatingadmissionpolicies'), /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\nreplica-limit\s+1\s+<unset>\s+\S+\n$/);
    assert.match(await kubectl.ok('get', 'validatingadmissionpolicybindings'), /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\nreplica-limit-binding\s+replica-limit\s+<unset>\s+\S+\n$/);
    assert.equal(await kubectl.ok('get', 'validatingadmissionpolicy', 'replica-limit', '-o', 'jsonpath={.spec.failurePolicy}'), 'Fail');
    await kubectl.ok('delete', 'validatingadmissionpolicybinding', 'replica-limit-binding');
    await kubectl.ok('delete', 'validatingadmissionpolicy', 'replica-limit');
  });

  it("stores a mutating webhook's JSONPatch and prints its warning", async () => {
    await stdin(configuration('Mutating', 'mutate', '/mutate', '')).ok('create', '-f', '-');
    const { name, result } = await createSeenBy('mutate', '/mutate');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Warning: mutated by the test webhook/);
    assert.equal(await kubectl.ok('get', 'configmap', name, '-o', 'jsonpath={.metadata.labels.injected}'), 'by-webhook');
  });

  it("refuses what a validating webhook denies, with the webhook's message", async () => {
    await stdin(configuration('Validating', 'deny', '/deny', '')).ok('create', '-f', '-');
    const { name, result } = await createSeenBy('deny', '/deny');
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, new RegExp(`admission webhook "deny\\.k8ts\\.test" denied the request: ${name} is not welcome here`));
    const get = await kubectl('get', 'configmap', name);
    assert.match(get.stderr, /NotFound/);
  });

  it('blocks on a hanging webhook with failurePolicy Fail, and the server keeps serving others', async () => {
    await stdin(configuration('Validating', 'hang-fail', '/hang', '  timeoutSeconds: 1\n  failurePolicy: Fail\n')).ok('create', '-f', '-');
    const [{ name, result }, other] = await Promise.all([createSeenBy('hang-fail', '/hang'), kubectl('get', 'namespaces')]);
    assert.equal(other.code, 0, other.stderr);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /Internal error occurred: failed calling webhook "hang-fail\.k8ts\.test": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded/);
    assert.match((await kubectl('get', 'configmap', name)).stderr, /NotFound/);
  });

  it('lets requests through a hanging webhook with failurePolicy Ignore', async () => {
    await stdin(configuration('Validating', 'hang-ignore', '/hang', '  timeoutSeconds: 1\n  failurePolicy: Ignore\n')).ok('create', '-f', '-');
    const before = webhooks.calls.get('/hang') ?? 0;
    const { name, result } = await createSeenBy('hang-ignore', '/hang');
    assert.ok((webhooks.calls.get('/hang') ?? 0) > before);
    assert.equal(result.code, 0, result.stderr);
    await kubectl.ok('get', 'configmap', name);
  });

  it('blocks on a crashing webhook with Fail and not with Ignore', async () => {
    await stdin(configuration('Validating', 'crash-fail', '/crash', '  failurePolicy: Fail\n')).ok('create', '-f', '-');
    const failed = await createSeenBy('crash-fail', '/crash');
    assert.notEqual(failed.result.code, 0);
    assert.match(failed.result.stderr, /failed calling webhook "crash-fail\.k8ts\.test": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/crash\?timeout=10s": EOF/);
    await stdin(configuration('Validating', 'crash-ignore', '/crash', '  failurePolicy: Ignore\n')).ok('create', '-f', '-');
    const ignored = await createSeenBy('crash-ignore', '/crash');
    assert.equal(ignored.result.code, 0, ignored.result.stderr);
    assert.equal(await kubectl.ok('get', '--raw', '/readyz'), 'ok');
  });
});
