/**
 * /metrics of a real `k8ts server`: kubectl's requests are counted with
 * upstream's labels, storage calls are timed, process metrics are there, and
 * only an authenticated client may read them.
 */
import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { findSample, parseExposition, type Sample } from '../../src/apiserver/metrics/testing/exposition.js';
import { startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { newKubectl, withStdin, type Kubectl } from './testing/kubectl.js';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

interface Response {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** GET over HTTPS with the kubeconfig's CA, and its client certificate unless anonymous. */
async function get(kubeconfigPath: string, path: string, options: { anonymous?: boolean } = {}): Promise<Response> {
  const config = parseYaml(await readFile(kubeconfigPath, 'utf8')) as Kubeconfig;
  const cluster = config.clusters[0]!.cluster;
  const user = config.users[0]!.user;
  const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cluster.server),
      {
        ca: b64(cluster['certificate-authority-data']),
        ...(options.anonymous === true ? {} : { cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) }),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
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

describe('GET /metrics of k8ts server', () => {
  let root: string;
  let server: K8tsProcess | undefined;
  let kubeconfig: string;
  let kubectl: Kubectl;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-metrics-'));
    server = startK8ts(['server', '--data-dir', join(root, 'data'), '--secure-port', '0', '--disable-agent']);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    kubectl = newKubectl('1.33', kubeconfig);
  });

  after(async () => {
    try {
      await server?.stop();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  const scrape = async (): Promise<Sample[]> => parseExposition(await kubectl.ok('get', '--raw', '/metrics'));
  const value = (samples: Sample[], name: string, labels: Record<string, string>): number => findSample(samples, name, labels)?.value ?? 0;

  it('counts kubectl requests with upstream labels and times the storage calls behind them', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) await kubectl.ok('get', 'namespaces');
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'metrics-e2e', namespace: 'default' }, data: { a: 'b' } };
    await withStdin(kubectl, kubeconfig, JSON.stringify(configMap)).ok('create', '-f', '-');
    const text = await kubectl.ok('get', '--raw', '/metrics');
    // The exact line a Prometheus query of upstream's metric would match.
    assert.match(
      text,
      /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver",code="200"\} \d+$/m,
    );
    const after = parseExposition(text);

    const listed = value(after, 'apiserver_request_total', { ...LIST_NAMESPACES, code: '200' }) - value(before, 'apiserver_request_total', { ...LIST_NAMESPACES, code: '200' });
    assert.ok(listed >= 3, `3 kubectl get namespaces counted as LIST namespaces (got ${listed})`);
    const observed =
      value(after, 'apiserver_request_duration_seconds_count', LIST_NAMESPACES) - value(before, 'apiserver_request_duration_seconds_count', LIST_NAMESPACES);
    assert.ok(observed >= 3, `their latency observed (got ${observed})`);
    const created = { verb: 'POST', resource: 'configmaps', scope: 'resource', code: '201' };
    assert.ok(value(after, 'apiserver_request_total', created) >= 1, 'the create counted as POST configmaps 201');
    assert.ok(value(after, 'apiserver_request_total', { verb: 'GET', subresource: '/metrics', code: '200' }) >= 1, 'the first scrape counted');

    // The watch cache answers the lists; behind each, storage is asked for its current revision (as upstream's cache does).
    const revisionReads =
      value(after, 'etcd_request_duration_seconds_count', { operation: 'getCurrentResourceVersion' }) -
      value(before, 'etcd_request_duration_seconds_count', { operation: 'getCurrentResourceVersion' });
    assert.ok(revisionReads >= 3, `the storage calls behind them timed (got ${revisionReads})`);
    assert.ok(value(after, 'etcd_request_duration_seconds_bucket', { operation: 'create', type: 'configmaps', le: '+Inf' }) >= 1);
    assert.ok(value(after, 'etcd_request_duration_seconds_bucket', { operation: 'create', type: 'configmaps', le: '60' }) >= 1);
    assert.ok(value(after, 'etcd_requests_total', { operation: 'create', type: 'configmaps' }) >= 1);

    assert.ok(findSample(after, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }) !== undefined);
    assert.ok(findSample(after, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }) !== undefined);
    assert.ok(value(after, 'process_cpu_seconds_total', {}) > 0, 'process metrics');
    assert.ok(findSample(after, 'process_resident_memory_bytes', {}) !== undefined);
  });

  it('serves Prometheus text format to an authenticated client, and nothing to an anonymous one', async () => {
    const res = await get(kubeconfig, '/metrics');
    assert.equal(res.status, 200);
    assert.equal(res.contentType, 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(res.body, /^# TYPE apiserver_request_total counter$/m);
    assert.match(res.body, /^# TYPE etcd_request_duration_seconds histogram$/m);
    // RBAC grants system:anonymous no /metrics (upstream's system:monitoring is bound to system:monitoring only).
    const anonymous = await get(kubeconfig, '/metrics', { anonymous: true });
    assert.equal(anonymous.status, 403);
  });
});
