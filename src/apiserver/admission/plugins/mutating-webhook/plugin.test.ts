import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusError } from '../../../../machinery/status.js';
import type { WebhookConfiguration } from '../../../../api/admissionregistration/v1/types.js';
import { configMapCreate, fakeDeps, reviewResponse, testWebhook, webhookConfiguration, type FakeDeps } from '../webhook/testing/fake-deps.js';
import { startTestHttpsServer, type Reply, type TestHttpsServer } from '../webhook/testing/https-server.js';
import { newTestTLS, type TestTLS } from '../webhook/testing/tls.js';
import { NAME, newMutatingAdmissionWebhook } from './plugin.js';

let tls: TestTLS;
const servers: TestHttpsServer[] = [];
const running: FakeDeps[] = [];

async function server(handle: (body: unknown) => Reply): Promise<TestHttpsServer> {
  const s = await startTestHttpsServer(tls, handle);
  servers.push(s);
  return s;
}

function plugin(...configs: WebhookConfiguration[]) {
  const fake = fakeDeps({ resource: 'mutatingwebhookconfigurations', configs });
  running.push(fake);
  return newMutatingAdmissionWebhook(fake.deps);
}

const patch = (ops: unknown[]): string => Buffer.from(JSON.stringify(ops)).toString('base64');
const labelPatch = (key: string, value: string) => patch([{ op: 'add', path: `/metadata/labels/${key}`, value }]);

before(async () => {
  tls = await newTestTLS();
});
after(async () => {
  for (const f of running) f.stop();
  await Promise.all(servers.map((s) => s.close()));
});

describe(NAME, () => {
  it('answers at once, without a promise, when no webhook is configured and the first list is in', async () => {
    const fake = fakeDeps({ resource: 'mutatingwebhookconfigurations', configs: [] });
    running.push(fake);
    const p = newMutatingAdmissionWebhook(fake.deps);
    const first = p.admit(configMapCreate());
    assert.ok(first instanceof Promise, 'before the first list: waits for it');
    await first;
    assert.equal(p.admit(configMapCreate()), undefined);
  });

  it("applies the webhook's JSONPatch to the object in place", async () => {
    const s = await server((body) => ({ body: reviewResponse(body, { allowed: true, patch: labelPatch('injected', 'yes'), patchType: 'JSONPatch' }) }));
    const attributes = configMapCreate();
    const object = attributes.object!;
    await plugin(webhookConfiguration('inject', testWebhook('inject.example.com', s.url, tls.caPem))).admit(attributes);
    assert.equal(attributes.object, object);
    assert.deepEqual(object.metadata.labels, { app: 'x', injected: 'yes' });
    assert.deepEqual(attributes.annotations, {
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"inject","webhook":"inject.example.com","mutated":true}',
    });
  });

  it('calls webhooks in order of configuration name, each seeing the previous patches', async () => {
    const order: string[] = [];
    const seen: unknown[] = [];
    const first = await server((body) => {
      order.push('a');
      return { body: reviewResponse(body, { allowed: true, patch: labelPatch('a', '1'), patchType: 'JSONPatch' }) };
    });
    const second = await server((body) => {
      order.push('b');
      seen.push((body as { request: { object: { metadata: { labels: unknown } } } }).request.object.metadata.labels);
      return { body: reviewResponse(body, { allowed: true }) };
    });
    const attributes = configMapCreate();
    await plugin(webhookConfiguration('zz-second', testWebhook('b.example.com', second.url, tls.caPem)), webhookConfiguration('aa-first', testWebhook('a.example.com', first.url, tls.caPem))).admit(attributes);
    assert.deepEqual(order, ['a', 'b']);
    assert.deepEqual(seen, [{ app: 'x', a: '1' }]);
  });

  it('reinvokes an IfNeeded webhook once when a later webhook changed the object', async () => {
    const calls: string[] = [];
    const watcher = await server((body) => {
      calls.push('watcher');
      return { body: reviewResponse(body, { allowed: true }) };
    });
    const changer = await server((body) => {
      calls.push('changer');
      return { body: reviewResponse(body, { allowed: true, patch: labelPatch('changed', 'yes'), patchType: 'JSONPatch' }) };
    });
    const attributes = configMapCreate();
    await plugin(
      webhookConfiguration('a', testWebhook('watcher.example.com', watcher.url, tls.caPem, { reinvocationPolicy: 'IfNeeded' })),
      webhookConfiguration('b', testWebhook('changer.example.com', changer.url, tls.caPem)),
    ).admit(attributes);
    assert.deepEqual(calls, ['watcher', 'changer', 'watcher']);
    assert.equal(attributes.annotations['mutation.webhook.admission.k8s.io/round_1_index_0'], '{"configuration":"a","webhook":"watcher.example.com","mutated":false}');

    calls.length = 0;
    await plugin(
      webhookConfiguration('a', testWebhook('watcher.example.com', watcher.url, tls.caPem, { reinvocationPolicy: 'Never' })),
      webhookConfiguration('b', testWebhook('changer.example.com', changer.url, tls.caPem)),
    ).admit(configMapCreate());
    assert.deepEqual(calls, ['watcher', 'changer']);
  });

  it('refuses a response with a patch but no patchType, and a patch that does not apply', async () => {
    const bad = await server((body) => ({ body: reviewResponse(body, { allowed: true, patch: labelPatch('x', 'y') }) }));
    await assert.rejects(
      plugin(webhookConfiguration('c', testWebhook('bad.example.com', bad.url, tls.caPem))).admit(configMapCreate()) as Promise<void>,
      (e: unknown) => e instanceof StatusError && e.code === 500 && /received invalid webhook response: webhook returned response\.patch but not response\.patchType$/.test(e.message),
    );
    const broken = await server((body) => ({ body: reviewResponse(body, { allowed: true, patch: patch([{ op: 'remove', path: '/spec/missing' }]), patchType: 'JSONPatch' }) }));
    await assert.rejects(
      plugin(webhookConfiguration('c', testWebhook('broken.example.com', broken.url, tls.caPem))).admit(configMapCreate()) as Promise<void>,
      (e: unknown) => e instanceof StatusError && e.code === 500 && /applying the webhook's JSON patch/.test(e.message),
    );
  });

  it('refuses what the webhook denies, fails open with Ignore', async () => {
    const deny = await server((body) => ({ body: reviewResponse(body, { allowed: false, status: { message: 'no' } }) }));
    await assert.rejects(plugin(webhookConfiguration('c', testWebhook('deny.example.com', deny.url, tls.caPem))).admit(configMapCreate()) as Promise<void>, {
      message: 'admission webhook "deny.example.com" denied the request: no',
    });
    const crash = await server(() => 'reset');
    const attributes = configMapCreate();
    await plugin(webhookConfiguration('c', testWebhook('crash.example.com', crash.url, tls.caPem, { failurePolicy: 'Ignore' }))).admit(attributes);
    assert.deepEqual(attributes.object!.metadata.labels, { app: 'x' });
    assert.deepEqual(Object.keys(attributes.annotations), ['failed-open.mutation.webhook.admission.k8s.io/round_0_index_0']);
  });
});
