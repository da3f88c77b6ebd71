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

async function authorizerFor(handle: (body: unknown) => Reply, options: { now?: () => number; version?: 'v1' | 'v1beta1' } = {}): Promise<{ authorizer: WebhookAuthorizer; server: TestHttpsServer }> {
  const server = await startTestHttpsServer(tls, handle);
  servers.push(server);
  const authorizer = new WebhookAuthorizer({
    endpoint: { server: new URL(`${server.url}/authorize`), ca: tls.caPem },
    ...(options.version !== undefined ? { version: options.version } : {}),
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

  it('speaks v1beta1 when asked (groups sent as `group`) and expects a v1beta1 answer', async () => {
    const { authorizer, server } = await authorizerFor(() => ({ body: { apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', status: { allowed: true } } }), { version: 'v1beta1' });
    assert.deepEqual(await authorizer.authorize(attrs({ user: { name: 'alice', groups: ['devs'], uid: 'u1', extra: { scopes: ['a'] } } })), { decision: 'Allow', reason: '' });
    assert.deepEqual(server.received[0], {
      apiVersion: 'authorization.k8s.io/v1beta1',
      kind: 'SubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', version: 'v1', resource: 'pods', name: 'p' }, user: 'alice', group: ['devs'], extra: { scopes: ['a'] }, uid: 'u1' },
      status: { allowed: false },
    });
    const v1Answer = await authorizerFor(() => sar({ allowed: true }), { version: 'v1beta1' });
    assert.match((await v1Answer.authorizer.authorize(attrs())).evaluationError ?? '', /expected response of authorization\.k8s\.io\/v1beta1, Kind=SubjectAccessReview, got authorization\.k8s\.io\/v1/);
  });

  it('sends user uid and extra, and every resource attribute (subresource, group)', () => {
    const review = subjectAccessReview(attrs({ user: { name: 'bob', groups: [], uid: 'id-1', extra: { 'authentication.kubernetes.io/pod-name': ['p1'] } }, apiGroup: 'apps', resource: 'deployments', subresource: 'scale', verb: 'update' }));
    assert.deepEqual(review.spec, {
      resourceAttributes: { namespace: 'default', verb: 'update', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'p' },
      user: 'bob',
      extra: { 'authentication.kubernetes.io/pod-name': ['p1'] },
      uid: 'id-1',
    });
  });

  it('denies, with an error, when the webhook answers both allowed and denied', async () => {
    const { authorizer } = await authorizerFor(() => sar({ allowed: true, denied: true, reason: 'confused' }));
    assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'Deny', reason: 'confused', evaluationError: 'webhook subject access review returned both allow and deny response' });
  });

  it('lists no rules: incomplete, with upstream\'s error', async () => {
    const { authorizer } = await authorizerFor(() => sar({ allowed: true }));
    assert.deepEqual(await authorizer.rulesFor({ name: 'alice', groups: [] }, 'default'), {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'webhook authorizer does not support user rule resolution',
    });
  });

  it('retries 429, 500 and 504 but not other refusals; a refused connection is not retried', async () => {
    for (const status of [429, 500, 504]) {
      const { authorizer, server } = await authorizerFor(() => ({ status, body: {} }));
      const result = await authorizer.authorize(attrs());
      assert.equal(result.decision, 'NoOpinion');
      assert.equal(server.received.length, 2, `status ${status} retried`);
    }
    const forbidden = await authorizerFor(() => ({ status: 403, body: {} }));
    assert.equal((await forbidden.authorizer.authorize(attrs())).evaluationError, 'the server responded with the status code 403 but did not return more information');
    assert.equal(forbidden.server.received.length, 1);
    const closed = await startTestHttpsServer(tls, () => sar({ allowed: true }));
    const url = new URL(`${closed.url}/authorize`);
    await closed.close();
    // A retry would wait ten minutes: the test would time out instead of passing.
    const down = new WebhookAuthorizer({ endpoint: { server: url, ca: tls.caPem }, timeoutMs: 1000, retryBackoff: { initialMs: 600_000, factor: 1, steps: 5 } });
    authorizers.push(down);
    const result = await down.authorize(attrs());
    assert.equal(result.decision, 'NoOpinion');
    assert.equal(result.evaluationError, `Post "${url.href}": dial tcp 127.0.0.1:${url.port}: connect: connection refused`);
  });

  it('does not cache answers for very large attributes', async () => {
    const { authorizer, server } = await authorizerFor(() => sar({ allowed: true }));
    const huge = attrs({ name: 'n'.repeat(10_000) });
    await authorizer.authorize(huge);
    await authorizer.authorize(huge);
    assert.equal(server.received.length, 2);
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
    assert.equal((await erroring.authorizer.authorize(attrs())).evaluationError, 'the server responded with the status code 500 but did not return more information');
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
    const authorizer = newWebhookAuthorizerFromFlags({ configFile: file, version: 'v1' });
    authorizers.push(authorizer);
    assert.equal((await authorizer.authorize(attrs())).decision, 'Allow');
    const beta = newWebhookAuthorizerFromFlags({ configFile: file });
    authorizers.push(beta);
    assert.match((await beta.authorize(attrs())).evaluationError ?? '', /expected response of authorization\.k8s\.io\/v1beta1/, 'v1beta1 is the default, as upstream');
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: file, version: 'v2' }), { message: 'unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"' });
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: '' }), { message: "authorization-mode Webhook's authorization config file not passed" });
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: join(dir, 'missing') }), /reading the authorization webhook config/);
    await writeFile(join(dir, 'http.kubeconfig'), 'clusters:\n- name: a\n  cluster:\n    server: http://127.0.0.1:1/\n');
    assert.throws(() => newWebhookAuthorizerFromFlags({ configFile: join(dir, 'http.kubeconfig') }), /must use https/);
  });
});
