import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notFound, unauthorized } from '../../../machinery/status.js';
import { newApiServerMetrics, type ApiServerMetrics } from '../../metrics/api-server-metrics.js';
import { newMetricsHandler } from '../../metrics/metrics-handler.js';
import { REQUEST_DURATION_BUCKETS } from '../../metrics/request-metrics.js';
import { findSample, findSamples, parseExposition, type Sample } from '../../metrics/testing/exposition.js';
import type { Handler, RequestContext } from '../context.js';
import { parseRequestInfo } from '../request-info.js';
import { withMetrics } from './with-metrics.js';

interface FakeResponse {
  statusCode: number;
  headersSent: boolean;
  headers: Record<string, unknown>;
  body: string | undefined;
}

/** A request context with just what the filter and the metrics handler read. */
function fakeContext(method: string, url: string, headers: Record<string, string> = {}): RequestContext & { res: FakeResponse } {
  const u = new URL(url, 'https://apiserver');
  const res = {
    statusCode: 200,
    headersSent: false,
    headers: {} as Record<string, unknown>,
    body: undefined as string | undefined,
    writeHead(code: number, h: Record<string, unknown> = {}) {
      this.statusCode = code;
      this.headers = h;
      this.headersSent = true;
      return this;
    },
    end(body?: string) {
      this.headersSent = true;
      this.body = body;
    },
    setHeader() {},
  };
  return {
    req: { method, headers },
    res,
    path: u.pathname,
    query: u.searchParams,
    info: parseRequestInfo(method, u.pathname, u.searchParams),
    user: undefined,
    start: process.hrtime.bigint(),
    warnings: [],
  } as unknown as RequestContext & { res: FakeResponse };
}

/** The filter over a stand-in for authentication (sets the user, or rejects with 401) and the handler. */
function chain(metrics: ApiServerMetrics, handler: Handler, options: { authenticated?: boolean } = {}): Handler {
  return withMetrics(metrics.requests)(async (ctx) => {
    if (options.authenticated === false) throw unauthorized();
    ctx.user = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
    await handler(ctx);
  });
}

const ok: Handler = async (ctx) => {
  ctx.res.writeHead(200);
  ctx.res.end('{}');
};

async function scrape(metrics: ApiServerMetrics): Promise<Sample[]> {
  return parseExposition(await metrics.registry.metrics());
}

function newMetrics(options: { maxShapes?: number } = {}): ApiServerMetrics {
  return newApiServerMetrics({ ...options, processMetrics: false });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const LIST_NAMESPACES = {
  verb: 'LIST',
  dry_run: '',
  group: '',
  version: 'v1',
  resource: 'namespaces',
  subresource: '',
  scope: 'cluster',
  component: 'apiserver',
};

describe('withMetrics', () => {
  it('counts requests with upstream labels and observes their latency in upstream buckets', async () => {
    const metrics = newMetrics();
    const handler = chain(metrics, ok);
    await handler(fakeContext('GET', '/api/v1/namespaces'));
    await handler(fakeContext('GET', '/api/v1/namespaces'));
    await handler(fakeContext('GET', '/apis/apps/v1/namespaces/default/deployments/web'));
    const samples = await scrape(metrics);
    assert.deepEqual(findSample(samples, 'apiserver_request_total', { ...LIST_NAMESPACES, code: '200' }), {
      name: 'apiserver_request_total',
      labels: { ...LIST_NAMESPACES, code: '200' },
      value: 2,
    });
    const get = { verb: 'GET', group: 'apps', version: 'v1', resource: 'deployments', scope: 'resource' };
    assert.equal(findSample(samples, 'apiserver_request_total', { ...get, code: '200' })?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_duration_seconds_count', LIST_NAMESPACES)?.value, 2);
    const buckets = findSamples(samples, 'apiserver_request_duration_seconds_bucket', LIST_NAMESPACES).map((s) => s.labels.le);
    assert.deepEqual(buckets, [...REQUEST_DURATION_BUCKETS.map(String), '+Inf']);
    assert.equal(findSample(samples, 'apiserver_request_duration_seconds_bucket', { ...LIST_NAMESPACES, le: '60' })?.value, 2);
  });

  it('counts an error thrown below it with the code it will be answered with, and rethrows it', async () => {
    const metrics = newMetrics();
    const missing = chain(metrics, async () => {
      throw notFound({ group: '', resource: 'namespaces' }, 'nope');
    });
    await assert.rejects(missing(fakeContext('GET', '/api/v1/namespaces/nope')), /not found/);
    const broken = chain(metrics, async () => {
      throw new Error('bug');
    });
    await assert.rejects(broken(fakeContext('GET', '/api/v1/namespaces/broken')), /bug/);
    const midStream = chain(metrics, async (ctx) => {
      ctx.res.writeHead(200);
      throw new Error('after the headers');
    });
    await assert.rejects(midStream(fakeContext('GET', '/api/v1/configmaps')), /after the headers/);
    const samples = await scrape(metrics);
    const get = { verb: 'GET', resource: 'namespaces', scope: 'resource' };
    assert.equal(findSample(samples, 'apiserver_request_total', { ...get, code: '404' })?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { ...get, code: '500' })?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'LIST', resource: 'configmaps', code: '200' })?.value, 1);
  });

  it('records verbs, dry runs and scopes of writes as upstream does', async () => {
    const metrics = newMetrics();
    const created: Handler = async (ctx) => {
      ctx.res.writeHead(201);
      ctx.res.end();
    };
    await chain(metrics, created)(fakeContext('POST', '/api/v1/namespaces/default/configmaps?dryRun=All'));
    await chain(metrics, ok)(fakeContext('PATCH', '/apis/apps/v1/namespaces/default/deployments/web', { 'content-type': 'application/apply-patch+yaml' }));
    await chain(metrics, ok)(fakeContext('DELETE', '/api/v1/namespaces/default/pods'));
    const samples = await scrape(metrics);
    const post = { verb: 'POST', dry_run: 'All', resource: 'configmaps', scope: 'resource', code: '201' };
    assert.equal(findSample(samples, 'apiserver_request_total', post)?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'APPLY', group: 'apps', resource: 'deployments' })?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'DELETE', resource: 'pods', scope: 'namespace' })?.value, 1);
  });

  it('records a request that failed authentication without the labels of its path', async () => {
    const metrics = newMetrics();
    const handler = chain(metrics, ok, { authenticated: false });
    await assert.rejects(handler(fakeContext('GET', '/apis/made.up/v1/things')), /Unauthorized/);
    await assert.rejects(handler(fakeContext('GET', '/made/up/path')), /Unauthorized/);
    const samples = await scrape(metrics);
    const unauthorizedList = { verb: 'LIST', group: '', version: '', resource: '', subresource: '', scope: 'cluster', code: '401' };
    assert.equal(findSample(samples, 'apiserver_request_total', unauthorizedList)?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'GET', subresource: '', scope: '', code: '401' })?.value, 1);
    assert.equal(findSamples(samples, 'apiserver_request_total', { group: 'made.up' }).length, 0);
    assert.equal(findSamples(samples, 'apiserver_request_total', { subresource: '/made/up/path' }).length, 0);
  });

  it('records non-resource requests by path, except paths that do not exist', async () => {
    const metrics = newMetrics();
    await chain(metrics, ok)(fakeContext('GET', '/healthz'));
    const missing = chain(metrics, async (ctx) => {
      ctx.res.writeHead(404);
      ctx.res.end();
    });
    await missing(fakeContext('GET', '/no/such/path'));
    const samples = await scrape(metrics);
    const healthz = { verb: 'GET', group: '', version: '', resource: '', subresource: '/healthz', scope: '', component: 'apiserver', code: '200' };
    assert.equal(findSample(samples, 'apiserver_request_total', healthz)?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'GET', subresource: '', scope: '', code: '404' })?.value, 1);
    assert.equal(findSamples(samples, 'apiserver_request_total', { subresource: '/no/such/path' }).length, 0);
  });

  it('tracks a watch in apiserver_longrunning_requests while it is open, then counts and observes it', async () => {
    const metrics = newMetrics();
    const release = deferred();
    const watch = chain(metrics, async (ctx) => {
      ctx.res.writeHead(200);
      await release.promise;
      ctx.res.end();
    });
    const done = watch(fakeContext('GET', '/api/v1/namespaces/default/pods?watch=true'));
    const open = { verb: 'WATCH', group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'namespace', component: 'apiserver' };
    let samples = await scrape(metrics);
    assert.equal(findSample(samples, 'apiserver_longrunning_requests', open)?.value, 1);
    assert.equal(findSample(samples, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })?.value, 0);
    assert.equal(findSamples(samples, 'apiserver_request_total', { verb: 'WATCH' }).length, 0);
    release.resolve();
    await done;
    samples = await scrape(metrics);
    assert.equal(findSample(samples, 'apiserver_longrunning_requests', open)?.value, 0);
    assert.equal(findSample(samples, 'apiserver_request_total', { ...open, dry_run: '', code: '200' })?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_duration_seconds_count', { verb: 'WATCH', resource: 'pods' })?.value, 1);
  });

  it('leaves no long-running series for a watch that failed authentication', async () => {
    const metrics = newMetrics();
    const handler = chain(metrics, ok, { authenticated: false });
    await assert.rejects(handler(fakeContext('GET', '/apis/made.up/v1/things?watch=1')), /Unauthorized/);
    const samples = await scrape(metrics);
    assert.equal(findSamples(samples, 'apiserver_longrunning_requests').length, 0);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'WATCH', resource: '', code: '401' })?.value, 1);
    assert.equal(metrics.requests.shapeCount, 1, 'only the path-less shape is kept');
  });

  it('reports the most requests in flight at once since the previous scrape, read-only and mutating apart', async () => {
    const metrics = newMetrics();
    const release = deferred();
    const slow = chain(metrics, async (ctx) => {
      await release.promise;
      await ok(ctx);
    });
    const running = [
      slow(fakeContext('GET', '/api/v1/pods')),
      slow(fakeContext('GET', '/api/v1/namespaces/default/pods/a')),
      slow(fakeContext('GET', '/healthz')),
      slow(fakeContext('POST', '/api/v1/namespaces/default/pods')),
    ];
    const kinds = async (): Promise<[number | undefined, number | undefined]> => {
      const samples = await scrape(metrics);
      return [
        findSample(samples, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })?.value,
        findSample(samples, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })?.value,
      ];
    };
    assert.deepEqual(await kinds(), [3, 1]);
    release.resolve();
    await Promise.all(running);
    assert.deepEqual(await kinds(), [3, 1], 'the window since the last scrape still saw them');
    assert.deepEqual(await kinds(), [0, 0]);
  });

  it('past maxShapes, new kinds of requests are recorded without the labels of their path', async () => {
    const metrics = newMetrics({ maxShapes: 2 });
    const handler = chain(metrics, ok);
    await handler(fakeContext('GET', '/api/v1/configmaps'));
    await handler(fakeContext('GET', '/api/v1/secrets'));
    await handler(fakeContext('GET', '/api/v1/services'));
    await handler(fakeContext('GET', '/api/v1/configmaps'));
    const samples = await scrape(metrics);
    assert.equal(findSample(samples, 'apiserver_request_total', { resource: 'configmaps' })?.value, 2);
    assert.equal(findSample(samples, 'apiserver_request_total', { resource: 'secrets' })?.value, 1);
    assert.equal(findSample(samples, 'apiserver_request_total', { verb: 'LIST', resource: '', scope: 'cluster' })?.value, 1);
    assert.equal(findSamples(samples, 'apiserver_request_total', { resource: 'services' }).length, 0);
  });

  it('passes requests through without metrics', () => {
    const next: Handler = async () => {};
    assert.equal(withMetrics(undefined)(next), next);
  });
});

describe('the /metrics handler', () => {
  it('serves the registry as Prometheus text', async () => {
    const metrics = newMetrics();
    await chain(metrics, ok)(fakeContext('GET', '/api/v1/namespaces'));
    const handler = newMetricsHandler(metrics.registry);
    const ctx = fakeContext('GET', '/metrics');
    await handler(ctx);
    assert.equal(ctx.res.statusCode, 200);
    assert.equal(ctx.res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(ctx.res.headers['content-length'], Buffer.byteLength(ctx.res.body!));
    assert.match(ctx.res.body!, /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver",code="200"\} 1$/m);
    const head = fakeContext('HEAD', '/metrics');
    await handler(head);
    assert.equal(head.res.statusCode, 200);
    assert.equal(head.res.body, undefined);
    await assert.rejects(handler(fakeContext('POST', '/metrics')), (e: unknown) => (e as { code?: number }).code === 405);
  });

  it('includes the process metrics', async () => {
    const metrics = newApiServerMetrics();
    const samples = parseExposition(await metrics.registry.metrics());
    assert.ok((findSample(samples, 'process_cpu_seconds_total')?.value ?? -1) >= 0);
    assert.ok((findSample(samples, 'process_resident_memory_bytes')?.value ?? 0) > 0 || process.platform !== 'linux');
    assert.ok(findSample(samples, 'process_start_time_seconds') !== undefined);
  });
});
