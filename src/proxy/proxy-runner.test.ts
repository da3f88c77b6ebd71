import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ENDPOINT_SLICES, SERVICES } from '../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../client/testing/fake-client.js';
import { waitFor } from '../client/testing/wait-for.js';
import { newLogger } from '../machinery/logger.js';
import type { Proxier, ProxyState, SyncResult } from './interface.js';
import { newProxyRunner, type ProxyRunner } from './proxy-runner.js';
import type { EndpointSliceObject } from './service-state.js';
import { readyEndpoint, testService, testSlice } from './testing/objects.js';

/** A Proxier that records every state it is given and can be told to reject or report problems. */
class RecordingProxier implements Proxier {
  readonly mode = 'userspace' as const;
  readonly states: ProxyState[] = [];
  rejections = 0;
  problems: string[] = [];
  closed = false;
  async sync(state: ProxyState): Promise<SyncResult> {
    if (this.rejections > 0) {
      this.rejections--;
      throw new Error('iptables-restore: not found');
    }
    this.states.push(state);
    return { servicePorts: state.services.size, endpoints: 0, problems: this.problems };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  get last(): ProxyState | undefined {
    return this.states.at(-1);
  }
}

interface LogLine {
  msg: string;
  slice?: string;
  resourceVersion?: string;
  problem?: string;
}

function captureLogger(): { logger: ReturnType<typeof newLogger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: newLogger('kube-proxy', { destination }), lines };
}

describe('proxy runner', () => {
  let runner: ProxyRunner | undefined;
  let client: FakeClient;
  afterEach(async () => {
    await runner?.stop();
    runner = undefined;
  });

  const slices = (): ReturnType<FakeClient['resource']> => client.resource(ENDPOINT_SLICES);

  it('syncs the state once caches are synced, then on every change, logging each slice revision applied', async () => {
    client = newFakeClient();
    client.seed(SERVICES, [testService('web')]);
    client.seed(ENDPOINT_SLICES, [testSlice('web-1', 'web', [readyEndpoint('127.244.0.2')])]);
    const proxier = new RecordingProxier();
    const { logger, lines } = captureLogger();
    const registry = new Registry();
    runner = newProxyRunner({ client, proxier, nodeName: 'n1', logger, registry, minSyncPeriodMs: 0 });
    await runner.start();
    await waitFor(() => proxier.last?.endpoints.get('default/web:http/TCP')?.length === 1);
    const first = lines.filter((l) => l.msg === 'applied EndpointSlice');
    assert.equal(first.length, 1);
    assert.equal(first[0]!.slice, 'default/web-1');

    const slice = (await slices().get('web-1', { namespace: 'default' })) as EndpointSliceObject;
    slice.endpoints = [{ addresses: ['127.244.0.2'], conditions: { ready: false } }];
    const written = await slices().update(slice);
    await waitFor(() => runner!.applied.get('default/web-1') === written.metadata.resourceVersion);
    assert.equal(proxier.last!.endpoints.get('default/web:http/TCP')![0]!.ready, false);
    const applied = lines.filter((l) => l.msg === 'applied EndpointSlice');
    assert.deepEqual(applied.at(-1), { ...applied.at(-1), slice: 'default/web-1', resourceVersion: written.metadata.resourceVersion });

    await slices().delete('web-1', { namespace: 'default' });
    await waitFor(() => lines.some((l) => l.msg === 'removed EndpointSlice' && l.slice === 'default/web-1'));
    assert.equal(runner.applied.size, 0);

    const metrics = await registry.metrics();
    assert.match(metrics, /kubeproxy_sync_proxy_rules_duration_seconds_count [1-9]/);
    assert.match(metrics, /kubeproxy_sync_proxy_rules_last_timestamp_seconds \d/);
    assert.match(metrics, /k8ts_proxy_endpointslice_revisions_applied_total 2/);
  });

  it('does not sync before both caches have synced', async () => {
    client = newFakeClient();
    client.seed(SERVICES, [testService('web')]);
    client.seed(ENDPOINT_SLICES, [testSlice('web-1', 'web', [readyEndpoint('127.244.0.2')])]);
    client.injectError('list', 'endpointslices', new Error('connection refused'), 3);
    const proxier = new RecordingProxier();
    runner = newProxyRunner({ client, proxier, nodeName: 'n1', logger: newLogger('t', { level: 'silent' }), minSyncPeriodMs: 0 });
    await runner.start();
    await waitFor(() => proxier.states.length > 0);
    // The first state the proxier ever saw already has the slice: no sync ran on the Services alone.
    assert.equal(proxier.states[0]!.endpoints.get('default/web:http/TCP')!.length, 1);
  });

  it('folds changes within minSyncPeriod into one later sync', async () => {
    client = newFakeClient();
    client.seed(SERVICES, [testService('web')]);
    const proxier = new RecordingProxier();
    runner = newProxyRunner({ client, proxier, nodeName: 'n1', logger: newLogger('t', { level: 'silent' }), minSyncPeriodMs: 300 });
    await runner.start();
    await waitFor(() => proxier.states.length === 1);
    for (let i = 0; i < 5; i++) await client.resource(SERVICES).create(testService(`s${i}`, { clusterIP: `127.96.0.${20 + i}` }));
    await waitFor(() => proxier.last!.services.size === 6);
    assert.equal(proxier.states.length, 2);
  });

  it('retries a rejected sync with back-off and logs the error', async () => {
    client = newFakeClient();
    client.seed(SERVICES, [testService('web')]);
    const proxier = new RecordingProxier();
    proxier.rejections = 2;
    const { logger, lines } = captureLogger();
    const errors: unknown[] = [];
    runner = newProxyRunner({ client, proxier, nodeName: 'n1', logger, minSyncPeriodMs: 0, initialRetryMs: 10, onSync: (o) => o.error !== undefined && errors.push(o.error) });
    await runner.start();
    await waitFor(() => proxier.states.length === 1);
    assert.equal(errors.length, 2);
    assert.equal(lines.filter((l) => l.msg === 'sync of proxy rules failed; retrying').length, 2);
  });

  it('resyncs periodically and logs problems only when they change', async () => {
    client = newFakeClient();
    client.seed(SERVICES, [testService('web')]);
    const proxier = new RecordingProxier();
    proxier.problems = ['address 127.96.0.10:80/TCP already in use'];
    const { logger, lines } = captureLogger();
    runner = newProxyRunner({ client, proxier, nodeName: 'n1', logger, minSyncPeriodMs: 0, syncPeriodMs: 20 });
    await runner.start();
    await waitFor(() => proxier.states.length >= 3);
    assert.deepEqual(lines.filter((l) => l.problem !== undefined).map((l) => l.problem), ['address 127.96.0.10:80/TCP already in use']);
  });

  it('closes the proxier on stop', async () => {
    client = newFakeClient();
    const proxier = new RecordingProxier();
    const r = newProxyRunner({ client, proxier, nodeName: 'n1', logger: newLogger('t', { level: 'silent' }), minSyncPeriodMs: 0 });
    await r.start();
    await r.stop();
    assert.equal(proxier.closed, true);
  });
});
