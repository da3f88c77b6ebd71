import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusError } from '../../../../machinery/status.js';
import type { Webhook } from '../../../../api/admissionregistration/v1/types.js';
import { configMapCreate, fakeDeps, reviewResponse, testWebhook, webhookConfiguration, type FakeDeps } from '../webhook/testing/fake-deps.js';
import { startTestHttpsServer, type Reply, type TestHttpsServer } from '../webhook/testing/https-server.js';
import { newTestTLS, type TestTLS } from '../webhook/testing/tls.js';
import { NAME, newValidatingAdmissionWebhook } from './plugin.js';

let tls: TestTLS;
const servers: TestHttpsServer[] = [];
const running: FakeDeps[] = [];

async function server(handle: (body: unknown) => Reply): Promise<TestHttpsServer> {
  const s = await startTestHttpsServer(tls, handle);
  servers.push(s);
  return s;
}

function plugin(...webhooks: Webhook[]) {
  const fake = fakeDeps({ resource: 'validatingwebhookconfigurations', configs: [webhookConfiguration('config', ...webhooks)], namespaces: { default: { env: 'prod' } } });
  running.push(fake);
  return newValidatingAdmissionWebhook(fake.deps);
}

async function refusal(promise: Promise<void>): Promise<StatusError> {
  try {
    await promise;
  } catch (e: unknown) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('the request was admitted');
}

before(async () => {
  tls = await newTestTLS();
});
after(async () => {
  for (const f of running) f.stop();
  await Promise.all(servers.map((s) => s.close()));
});

describe(NAME, () => {
  it('answers at once, without a promise, when no webhook is configured and the first list is in', async () => {
    const fake = fakeDeps({ resource: 'validatingwebhookconfigurations', configs: [] });
    running.push(fake);
    const p = newValidatingAdmissionWebhook(fake.deps);
    const first = p.validate(configMapCreate());
    assert.ok(first instanceof Promise, 'before the first list: waits for it');
    await first;
    assert.equal(p.validate(configMapCreate()), undefined);
  });

  it('sends an AdmissionReview v1 and admits what the webhook allows, with its warnings and audit annotations', async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: true, warnings: ['careful'], auditAnnotations: { checked: 'yes' } }) }));
    const p = plugin(testWebhook('allow.example.com', `${s.url}/validate`, tls.caPem));
    const attributes = configMapCreate();
    await p.validate(attributes);
    assert.deepEqual(attributes.warnings, ['careful']);
    assert.deepEqual(attributes.annotations, { 'allow.example.com/checked': 'yes' });
    assert.equal(s.paths[0], '/validate?timeout=10s');
    const review = s.received[0] as { apiVersion: string; kind: string; request: Record<string, unknown> };
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.kind, 'AdmissionReview');
    const { uid, ...request } = review.request;
    assert.match(String(uid), /^[0-9a-f-]{36}$/);
    assert.deepEqual(request, {
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name: 'cm',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
      object: attributes.object,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
  });

  it("refuses with the webhook's message, code and reason", async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'configmaps need an owner' } }) }));
    const e = await refusal(plugin(testWebhook('deny.example.com', s.url, tls.caPem)).validate(configMapCreate()) as Promise<void>);
    assert.equal(e.code, 403);
    assert.equal(e.reason, 'Forbidden');
    assert.equal(e.message, 'admission webhook "deny.example.com" denied the request: configmaps need an owner');
  });

  it('refuses without explanation with 400 when the webhook gives no status', async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: false }) }));
    const e = await refusal(plugin(testWebhook('deny.example.com', s.url, tls.caPem)).validate(configMapCreate()) as Promise<void>);
    assert.equal(e.code, 400);
    assert.equal(e.message, 'admission webhook "deny.example.com" denied the request without explanation');
  });

  it('does not call webhooks whose rules or selectors do not match', async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: false }) }));
    const p = plugin(
      testWebhook('pods.example.com', s.url, tls.caPem, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }),
      testWebhook('labelled.example.com', s.url, tls.caPem, { objectSelector: { matchLabels: { app: 'other' } } }),
      testWebhook('devns.example.com', s.url, tls.caPem, { namespaceSelector: { matchLabels: { env: 'dev' } } }),
    );
    await p.validate(configMapCreate());
    await p.validate(configMapCreate({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } }));
    assert.equal(s.received.length, 0);
  });

  it('fails closed on a timeout with upstream message, and open with Ignore', async () => {
    const s = await server(() => 'hang');
    const hang = testWebhook('hang.example.com', s.url, tls.caPem, { timeoutSeconds: 1 });
    const e = await refusal(plugin(hang).validate(configMapCreate()) as Promise<void>);
    assert.equal(e.code, 500);
    assert.equal(e.reason, 'InternalError');
    assert.equal(e.message, `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "${s.url}/?timeout=1s": context deadline exceeded`);
    const attributes = configMapCreate();
    await plugin({ ...hang, failurePolicy: 'Ignore' }).validate(attributes);
    assert.deepEqual(attributes.annotations, { 'failed-open.validating.webhook.admission.k8s.io/round_0_index_0': 'hang.example.com' });
  });

  it('fails closed when the webhook resets the connection, and open with Ignore', async () => {
    const s = await server(() => 'reset');
    const crash = testWebhook('crash.example.com', s.url, tls.caPem);
    const e = await refusal(plugin(crash).validate(configMapCreate()) as Promise<void>);
    assert.equal(e.message, `Internal error occurred: failed calling webhook "crash.example.com": failed to call webhook: Post "${s.url}/?timeout=10s": EOF`);
    await plugin({ ...crash, failurePolicy: 'Ignore' }).validate(configMapCreate());
  });

  it('fails closed on a certificate it does not trust and on a bad response', async () => {
    const other = await newTestTLS();
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: true }) }));
    const e = await refusal(plugin(testWebhook('tls.example.com', s.url, other.caPem)).validate(configMapCreate()) as Promise<void>);
    assert.match(e.message, /failed calling webhook "tls\.example\.com": failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    const wrong = await server(() => ({ body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'nope', allowed: true } } }));
    const e2 = await refusal(plugin(testWebhook('uid.example.com', wrong.url, tls.caPem)).validate(configMapCreate()) as Promise<void>);
    assert.match(e2.message, /failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]+", got "nope"$/);
    const patching = await server((body) => ({ body: reviewResponse(body, { allowed: true, patch: 'W10=', patchType: 'JSONPatch' }) }));
    const e3 = await refusal(plugin(testWebhook('patch.example.com', patching.url, tls.caPem)).validate(configMapCreate()) as Promise<void>);
    assert.match(e3.message, /received invalid webhook response: validating webhooks may not return patches$/);
    const erroring = await server(() => ({ status: 500, body: { message: 'boom' } }));
    const e4 = await refusal(plugin(testWebhook('err.example.com', erroring.url, tls.caPem)).validate(configMapCreate()) as Promise<void>);
    assert.match(e4.message, /failed to call webhook: an error on the server \("boom"\) has prevented the request from succeeding$/);
  });

  it('refuses a dry run to a webhook with side effects, whatever its failure policy', async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: true }) }));
    const p = plugin(testWebhook('effects.example.com', s.url, tls.caPem, { sideEffects: 'Unknown', failurePolicy: 'Ignore' }));
    const e = await refusal(p.validate(configMapCreate({ dryRun: true })) as Promise<void>);
    assert.equal(e.code, 400);
    assert.equal(e.message, 'admission webhook "effects.example.com" does not support dry run');
    await plugin(testWebhook('noeffects.example.com', s.url, tls.caPem, { sideEffects: 'NoneOnDryRun' })).validate(configMapCreate({ dryRun: true }));
    assert.equal((s.received.at(-1) as { request: { dryRun: boolean } }).request.dryRun, true);
  });

  it('sends deletes with oldObject and DeleteOptions', async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: true }) }));
    const old = configMapCreate().object!;
    await plugin(testWebhook('del.example.com', s.url, tls.caPem, { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })).validate(
      configMapCreate({ operation: 'DELETE', object: undefined, oldObject: old }),
    );
    const request = (s.received[0] as { request: Record<string, unknown> }).request;
    assert.equal(request.operation, 'DELETE');
    assert.equal(request.object, null);
    assert.deepEqual(request.oldObject, old);
    assert.deepEqual(request.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
  });
});
