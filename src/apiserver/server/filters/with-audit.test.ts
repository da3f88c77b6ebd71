import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notFound } from '../../../machinery/status.js';
import type { Auditor } from '../../audit/auditor.js';
import type { LogBackend } from '../../audit/log-backend.js';
import { defaultServerPolicy, newPolicyEvaluator } from '../../audit/policy.js';
import { auditRequestObject } from '../../audit/request-audit.js';
import type { AuditEvent, Policy } from '../../audit/types.js';
import type { Handler, RequestContext } from '../context.js';
import { parseRequestInfo } from '../request-info.js';
import { writeObject } from '../response.js';
import { buildHandlerChain } from '../chain.js';
import { trackLatency } from './track-latency.js';
import { withAudit } from './with-audit.js';

function memoryBackend(): LogBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { events, write: (e) => void events.push(e as AuditEvent), flush: async () => {}, close: async () => {} };
}

function auditor(policy: Policy = defaultServerPolicy()): Auditor & { backend: ReturnType<typeof memoryBackend> } {
  return { policy: newPolicyEvaluator(policy), backend: memoryBackend() };
}

function fakeContext(method: string, url: string, headers: Record<string, string> = {}): RequestContext {
  const u = new URL(url, 'https://apiserver');
  const res = {
    statusCode: 200,
    headersSent: false,
    headers: {} as Record<string, unknown>,
    writeHead(code: number) {
      this.statusCode = code;
      this.headersSent = true;
      return this;
    },
    end() {
      this.headersSent = true;
    },
    setHeader(name: string, value: unknown) {
      this.headers[name.toLowerCase()] = value;
    },
  };
  return {
    req: { method, url, headers: { 'user-agent': 'kubectl/v1.32.0', ...headers }, socket: { remoteAddress: '127.0.0.1' } },
    res,
    path: u.pathname,
    query: u.searchParams,
    info: parseRequestInfo(method, u.pathname, u.searchParams),
    user: { name: 'alice', groups: ['devs', 'system:authenticated'] },
    start: process.hrtime.bigint(),
    warnings: [],
  } as unknown as RequestContext;
}

const everything: Policy = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'RequestResponse' }] };

describe('withAudit', () => {
  it('writes RequestReceived and ResponseComplete with user, verb, object and answer', async () => {
    const a = auditor(everything);
    const ctx = fakeContext('POST', '/api/v1/namespaces/default/configmaps', { 'x-forwarded-for': '10.0.0.9' });
    const handler: Handler = async (c) => {
      auditRequestObject(c, { kind: 'ConfigMap', metadata: { name: 'settings' } });
      writeObject(c, 201, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'settings', uid: 'u1' } });
    };
    await withAudit(a)(handler)(ctx);
    const [received, complete] = a.backend.events;
    assert.equal(a.backend.events.length, 2);
    assert.equal(received?.stage, 'RequestReceived');
    assert.equal(received?.responseStatus, undefined);
    assert.equal(complete?.stage, 'ResponseComplete');
    assert.equal(complete?.auditID, received?.auditID);
    assert.equal(complete?.verb, 'create');
    assert.deepEqual(complete?.user, { username: 'alice', groups: ['devs', 'system:authenticated'] });
    assert.deepEqual(complete?.sourceIPs, ['10.0.0.9', '127.0.0.1']);
    assert.equal(complete?.userAgent, 'kubectl/v1.32.0');
    assert.deepEqual(complete?.objectRef, { resource: 'configmaps', namespace: 'default', apiVersion: 'v1', name: 'settings', uid: 'u1' });
    assert.deepEqual(complete?.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual(complete?.requestObject, { kind: 'ConfigMap', metadata: { name: 'settings' } });
    assert.equal((complete?.responseObject as { metadata: { uid: string } }).metadata.uid, 'u1');
    assert.match(complete?.annotations?.['apiserver.latency.k8s.io/total'] ?? '', /^[0-9.]+(ns|µs|ms|s)$/);
    assert.match(complete?.stageTimestamp ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    assert.equal((ctx.res as unknown as { headers: Record<string, unknown> }).headers['audit-id'], complete?.auditID);
  });

  it('keeps request and response bodies out at Metadata level and names a generated object', async () => {
    const a = auditor();
    const ctx = fakeContext('POST', '/api/v1/namespaces/default/pods');
    await withAudit(a)(async (c) => {
      auditRequestObject(c, { kind: 'Pod', metadata: { generateName: 'web-' } });
      writeObject(c, 201, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web-x1', uid: 'u2' } });
    })(ctx);
    const [complete] = a.backend.events;
    assert.equal(a.backend.events.length, 1, 'the built-in policy leaves RequestReceived out');
    assert.equal(complete?.level, 'Metadata');
    assert.equal(complete?.requestObject, undefined);
    assert.equal(complete?.responseObject, undefined);
    assert.equal(complete?.objectRef?.name, 'web-x1');
    assert.equal(complete?.objectRef?.uid, 'u2');
  });

  it('records a refused request with the Status it gets, and rethrows', async () => {
    const a = auditor();
    const ctx = fakeContext('GET', '/api/v1/namespaces/default/configmaps/missing');
    await assert.rejects(withAudit(a)(async () => {
      throw notFound({ group: '', resource: 'configmaps' }, 'missing');
    })(ctx));
    const status = a.backend.events[0]?.responseStatus as Record<string, unknown>;
    assert.equal(status.code, 404);
    assert.equal(status.reason, 'NotFound');
    assert.equal(status.message, 'configmaps "missing" not found');
    assert.equal(status.kind, undefined);
  });

  it('writes a Panic event for an unexpected failure', async () => {
    const a = auditor();
    await assert.rejects(withAudit(a)(async () => {
      throw new TypeError('boom');
    })(fakeContext('GET', '/api/v1/namespaces/default/configmaps/x')));
    const event = a.backend.events[0];
    assert.equal(event?.stage, 'Panic');
    assert.equal((event?.responseStatus as { code: number }).code, 500);
  });

  it('writes ResponseStarted when a watch starts streaming', async () => {
    const a = auditor();
    const ctx = fakeContext('GET', '/api/v1/namespaces/default/pods?watch=true');
    await withAudit(a)(async (c) => {
      c.res.writeHead(200);
      assert.equal(a.backend.events.length, 1);
      c.res.end();
    })(ctx);
    assert.deepEqual(a.backend.events.map((e) => e.stage), ['ResponseStarted', 'ResponseComplete']);
  });

  it('writes nothing for a request at level None, and passes through without an auditor', async () => {
    const a = auditor();
    let called = 0;
    await withAudit(a)(async () => void called++)(fakeContext('GET', '/healthz'));
    await withAudit(undefined)(async () => void called++)(fakeContext('GET', '/api/v1/pods'));
    assert.equal(called, 2);
    assert.equal(a.backend.events.length, 0);
  });

  it('the chain audits a request refused by authentication, and times authentication of the others', async () => {
    const a = auditor();
    const chain = buildHandlerChain(async (c) => writeObject(c, 200, { kind: 'PodList', apiVersion: 'v1', items: [] }), { log: () => {}, auditor: a });
    // A fake request carries no certificate: authentication refuses it.
    const anonymous = fakeContext('GET', '/api/v1/pods');
    (anonymous as { user: unknown }).user = undefined;
    await chain(anonymous);
    const refused = a.backend.events[0];
    assert.equal(refused?.stage, 'ResponseStarted');
    assert.equal((refused?.responseStatus as { code: number; reason: string }).code, 401);
    assert.equal(refused?.user.username, '');
    const timed = fakeContext('GET', '/api/v1/pods');
    await trackLatency('authentication', (next) => next)(async (c) => {
      await withAudit(a)(async (c2) => writeObject(c2, 200, { kind: 'PodList', apiVersion: 'v1', items: [] }))(c);
    })(timed);
    const event = a.backend.events.at(-1);
    assert.match(event?.annotations?.['apiserver.latency.k8s.io/authentication'] ?? '', /^[0-9.]+(ns|µs|ms)$/);
  });

  it('a filter that refuses the request is timed until it throws', async () => {
    const ctx = fakeContext('GET', '/api/v1/pods');
    await assert.rejects(trackLatency('authorization', () => async () => {
      throw notFound({ group: '', resource: 'pods' }, 'x');
    })(async () => {})(ctx));
    assert.ok(new Map(ctx.latency?.entries()).has('authorization'));
  });
});
