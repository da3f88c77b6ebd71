import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestHttpsServer, type Reply, type TestHttpsServer } from '../../../admission/plugins/webhook/testing/https-server.js';
import { newTestTLS, type TestTLS } from '../../../admission/plugins/webhook/testing/tls.js';
import type { Attributes } from '../interface.js';
import { newWebhookAuthorizerFromFlags, subjectAccessReview, WebhookAuthorizer } from './webhook-authorizer.js';

let tls: TestTLS;
let dir: string;
const servers: TestHttpsServer[] = [];
const authorizers: WebhookAuthorizer[] = [];

const attrs = (over: Partial<Attributes> = {}): Attributes => ({
  user: { name: 'alice', groups: ['devs'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/default/pods/p',
  namespace: 'default',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...over,
});

const sar = (status: Record<string, unknown>): Reply => ({ body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status } });

async function authorizerFor(handle: (body: unknown) => Reply, options: { now?: () => number } = {}): Promise<{ authorizer: WebhookAuthorizer; server: TestHttpsServer }> {
  const server = await startTestHttpsServer(tls, handle);
  servers.push(server);
  const authorizer = new WebhookAuthorizer({
    endpoint: { server: new URL(`${server.url}/authorize`), ca: tls.caPem },
    authorizedTTLMs: 300_000,
    unauthorizedTTLMs: 30_000,
    timeoutMs: 1000,
    retryBackoff: { initialMs: 1, factor: 1, steps: 2 },
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  authorizers.push(authorizer);
  return { authorizer, server };
}

before(async () => {
  tls = await newTestTLS();
  dir = await mkdtemp(join(tmpdir(), 'authz-webhook-'));
});
after(async () => {
  for (const a of authorizers) a.close();
  await Promise.all(servers.map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('WebhookAuthorizer', () => {
  it('posts a SubjectAccessReview v1 and maps allowed, denied and neither', async () => {
    const { authorizer, server } = await authorizerFor((body) => {
      const spec = (body as { spec: { resourceAttributes?: { verb?: string } } }).spec;
      const verb = spec.resourceAttributes?.verb;
      return verb === 'get' ? sar({ allowed: true, reason: 'policy says yes' }) : verb === 'delete' ? sar({ allowed: false, denied: true, reason: 'never' }) : sar({ allowed: false });
    });
    assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'Allow', reason: 'policy says yes' });
    assert.deepEqual(await authorizer.authorize(attrs({ verb: 'delete' })), { decision: 'Deny', reason: 'never' });
    assert.deepEqual(await authorizer.authorize(attrs({ verb: 'list', name: '' })), { decision: 'NoOpinion', reason: '' });
    assert.deepEqual(server.received[0], {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', version: 'v1', resource: 'pods', name: 'p' }, user: 'alice', groups: ['devs'] },
      status: { allowed: false },
    });
    assert.equal(server.paths[0], '/authorize');
  });

  it('sends non-resource requests as nonResourceAttributes', () => {
    const review = subjectAccessReview(attrs({ isResourceRequest: false, path: '/healthz', verb: 'get' }));
    assert.deepEqual(review.spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice', groups: ['devs'] });
  });

  it('caches allowed answers for the authorized TTL and the rest for the unauthorized TTL', async () => {
    let now = 1_000_000;
    const { authorizer, server } = await authorizerFor((body) => {
      const verb = (body as { spec: { resourceAttributes: { verb: string } } }).spec.resourceAttributes.verb;
      return sar({ allowed: verb === 'get' });
    }, { now: () => now });
    await authorizer.authorize(attrs());
    await authorizer.authorize(attrs({ verb: 'update' }));
    await authorizer.authorize(attrs());
    await authorizer.authorize(attrs({ verb: 'update' }));
    assert.equal(server.received.length, 2);
    now += 31_000;
    await authorizer.authorize(attrs());
    await authorizer.authorize(attrs({ verb: 'update' }));
    assert.equal(server.received.length, 3, 'the unauthorized answer expired, the authorized one did not');
    now += 300_000;
    await authorizer.authorize(attrs());
    assert.equal(server.received.length, 4);
  });

  it('has no opinion, with an evaluation error, when the webhook fails; nothing is cached', async () => {
    const { authorizer, server } = await authorizerFor(() => 'reset');
    const result = await authorizer.authorize(attrs());
    assert.equal(result.decision, 'NoOpinion');
    assert.match(result.evaluationError ?? '', /^Post "https:\/\/127\.0\.0\.1:\d+\/authorize": EOF$/);
    assert.equal(server.received.length, 2, 'retried once (steps: 2)');
    const hanging = await authorizerFor(() => 'hang');
    assert.match((await hanging.authorizer.authorize(attrs())).evaluationError ?? '', /context deadline exceeded$/);
    const erroring = await authorizerFor(() => ({ status: 500, body: {} }));
    assert.equal((await erroring.authorizer.authorize(attrs())).evaluationError, 'the server responded with the status code 500');
    const wrongKind = await authorizerFor(() => ({ body: { apiVersion: 'v1', kind: 'Status' } }));
    assert.match((await wrongKind.authorizer.authorize(attrs())).evaluationError ?? '', /expected response of authorization\.k8s\.io\/v1, Kind=SubjectAccessReview/);
  });

  it('is built from a kubeconfig-format file and its flags', async () => {
    const { server } = await authorizerFor(() => sar({ allowed: true }));
    await writeFile(join(dir, 'ca.pem'), tls.caPem);
    const file = join(dir, 'authz.kubeconfig');
    await writeFile(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: authz',
        '  cluster:',
        '    certificate-authority: ca.pem',
        `    server: ${server.url}/authorize`,
        'users:',
        '- name: apiserver',
        '  user:',
        '    token: secret-token',
        'contexts:',
        '- name: webhook',
        '  context: {cluster: authz, user: apiserver}',
        'current-context: webhook',
      ].join('\n'),
    );
    const authorizer = newWebhookAuthorizerFromFlags({ configFile: file });
    authorizers.push(authorizer);
    assert.equal((await authorizer.authorize(attrs())).decision, 'Allow');
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: file, version: 'v1beta1' }), /--authorization-webhook-version: unsupported version "v1beta1"/);
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: join(dir, 'missing') }), /reading the authorization webhook config/);
    await writeFile(join(dir, 'http.kubeconfig'), 'clusters:\n- name: a\n  cluster:\n    server: http://127.0.0.1:1/\n');
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: join(dir, 'http.kubeconfig') }), /must use https/);
  });
});
