import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { notFound } from '../../../../machinery/status.js';
import type { StoreLookup } from '../../../endpoints/target.js';
import type { GenericStore } from '../../../registry/generic/store.js';
import { isExemptResource, WebhookCaller } from './caller.js';
import { ErrCallingWebhook } from './errors.js';
import { configMapCreate, reviewResponse, testWebhook } from './testing/fake-deps.js';
import { startTestHttpsServer, type TestHttpsServer } from './testing/https-server.js';
import { newTestTLS, type TestTLS } from './testing/tls.js';

let tls: TestTLS;
let server: TestHttpsServer;
let caller: WebhookCaller;
let port: number;

const services = (items: Record<string, KubeObject>): StoreLookup =>
  ((group: string, _v: string, resource: string) =>
    group === '' && resource === 'services'
      ? ({
          async get(ns: string | undefined, name: string) {
            const svc = items[`${ns ?? ''}/${name}`];
            if (svc === undefined) throw notFound({ group: '', resource: 'services' }, name);
            return svc;
          },
        } as unknown as GenericStore)
      : undefined) as StoreLookup;

const service = (clusterIP: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks', namespace: 'system' }, spec: { clusterIP } }) as KubeObject;

before(async () => {
  tls = await newTestTLS({ dnsNames: ['hooks.system.svc'] });
  server = await startTestHttpsServer(tls, (body) => ({ body: reviewResponse(body, { allowed: true }) }));
  port = Number(new URL(server.url).port);
});
after(async () => {
  caller?.close();
  await server.close();
});

describe('WebhookCaller with a service reference', () => {
  const hook = (path?: string) =>
    testWebhook('svc.example.com', '', tls.caPem, { clientConfig: { service: { namespace: 'system', name: 'hooks', port, ...(path !== undefined ? { path } : {}) }, caBundle: Buffer.from(tls.caPem).toString('base64') } });

  it("calls the Service's cluster IP, checking the certificate against the service's DNS name", async () => {
    caller = new WebhookCaller({ stores: services({ 'system/hooks': service('127.0.0.1') }) });
    const response = await caller.call(hook('/admit'), configMapCreate(), false);
    assert.equal(response.allowed, true);
    assert.equal(server.paths.at(-1), '/admit?timeout=10s');
  });

  it('refuses clearly when the service is missing or has no cluster IP', async () => {
    const missing = new WebhookCaller({ stores: services({}) });
    await assert.rejects(missing.call(hook(), configMapCreate(), false), (e: unknown) => e instanceof ErrCallingWebhook && /failed to resolve service hooks\.system\.svc: services "hooks" not found/.test(e.message));
    const headless = new WebhookCaller({ stores: services({ 'system/hooks': service('None') }) });
    await assert.rejects(headless.call(hook(), configMapCreate(), false), { message: 'failed calling webhook "svc.example.com": failed to resolve service hooks.system.svc: it has no cluster IP' });
  });

  it('reports a refused connection in Go words', async () => {
    const closed = await startTestHttpsServer(tls, () => 'hang');
    await closed.close();
    const c = new WebhookCaller({ stores: services({}) });
    await assert.rejects(c.call(testWebhook('down.example.com', closed.url, tls.caPem), configMapCreate(), false), {
      message: `failed calling webhook "down.example.com": failed to call webhook: Post "${closed.url}/?timeout=10s": dial tcp 127.0.0.1:${new URL(closed.url).port}: connect: connection refused`,
    });
    c.close();
  });
});

describe('isExemptResource', () => {
  it('exempts the admission configuration kinds only', () => {
    assert.equal(isExemptResource({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' } }), true);
    assert.equal(isExemptResource({ resource: { group: '', version: 'v1', resource: 'configmaps' } }), false);
  });
});
