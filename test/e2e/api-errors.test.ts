/**
 * Bad input always gets a clear Status error and changes nothing: malformed
 * bodies, mismatched kinds and names, oversized bodies, unknown media types,
 * resources and verbs, a stale resourceVersion, anonymous requests.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiClient, serverUrlOf } from './testing/api-client.js';
import type { TestCluster } from './kubectl/cluster.js';
import { startLeanCluster } from './kubectl/lean-cluster.js';

interface Status {
  kind: string;
  status: string;
  reason: string;
  code: number;
  message: string;
  details?: { causes?: { field?: string; reason?: string }[] };
}

describe('API errors', () => {
  let cluster: TestCluster | undefined;
  let pki: string;
  let api: ApiClient;
  let url: string;
  before(async () => {
    // The API server alone (lean-cluster.ts), which also makes namespace default's ServiceAccount: pods are refused
    // until it exists (ServiceAccount admission).
    cluster = await startLeanCluster('errors');
    url = serverUrlOf(cluster.kubeconfig);
    pki = join(cluster.workDir, 'data', 'pki');
    api = new ApiClient(url, pki);
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  const expectStatus = async (method: string, path: string, options: Parameters<ApiClient['request']>[2], code: number, reason: string, message?: RegExp): Promise<Status> => {
    const r = await api.request(method, path, options);
    assert.equal(r.status, code, `${method} ${path}: ${r.text}`);
    const body = r.json<Status>();
    assert.equal(body.kind, 'Status');
    assert.equal(body.status, 'Failure');
    assert.equal(body.code, code);
    assert.equal(body.reason, reason);
    if (message !== undefined) assert.match(body.message, message);
    assert.doesNotMatch(r.text, /\s+at .*\.js:\d+/, 'no stack trace');
    return body;
  };

  const configMaps = '/api/v1/namespaces/default/configmaps';
  const countConfigMaps = async (): Promise<number> => (await api.request('GET', configMaps)).json<{ items: unknown[] }>().items.length;

  it('rejects malformed JSON with 400 and stores nothing', async () => {
    const before = await countConfigMaps();
    await expectStatus('POST', configMaps, { body: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {' }, 400, 'BadRequest');
    await expectStatus('POST', configMaps, { body: '[1,2]' }, 400, 'BadRequest');
    assert.equal(await countConfigMaps(), before);
  });

  it('rejects a body whose kind or apiVersion does not match the URL', async () => {
    await expectStatus('POST', configMaps, { body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }) }, 400, 'BadRequest', /Secret/);
    await expectStatus('POST', configMaps, { body: JSON.stringify({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } }) }, 400, 'BadRequest', /apps\/v1/);
  });

  it('rejects a name in the body that differs from the URL, and a namespace that differs', async () => {
    const created = await api.request('POST', configMaps, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'named' } }) });
    assert.equal(created.status, 201);
    await expectStatus('PUT', `${configMaps}/named`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }) }, 400, 'BadRequest', /does not match the name on the URL/);
    await expectStatus('POST', configMaps, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ns', namespace: 'kube-system' } }) }, 400, 'BadRequest', /namespace/);
  });

  it('answers 413 for a body over 3 MiB', async () => {
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { x: 'a'.repeat(3 * 1024 * 1024 + 10) } });
    await expectStatus('POST', configMaps, { body: big }, 413, 'RequestEntityTooLarge', /limit is 3145728/);
    assert.equal((await api.request('GET', `${configMaps}/big`)).status, 404);
  });

  it('answers 415 for an unknown content type and 406 for an unservable Accept', async () => {
    await expectStatus('POST', configMaps, { body: 'x', headers: { 'content-type': 'text/plain' } }, 415, 'UnsupportedMediaType');
    await expectStatus('PATCH', `${configMaps}/named`, { body: '{}', headers: { 'content-type': 'application/json' } }, 415, 'UnsupportedMediaType');
    await expectStatus('GET', configMaps, { headers: { accept: 'text/html' } }, 406, 'NotAcceptable');
  });

  it('answers 404 for an unknown resource and 405 for an unsupported verb', async () => {
    await expectStatus('GET', '/api/v1/namespaces/default/foos', {}, 404, 'NotFound', /the server could not find the requested resource/);
    await expectStatus('GET', '/apis/nope.example.com/v1/things', {}, 404, 'NotFound');
    await expectStatus('PUT', configMaps, { body: '{}' }, 405, 'MethodNotAllowed');
    await expectStatus('POST', `${configMaps}/named`, { body: '{}' }, 405, 'MethodNotAllowed');
  });

  it('answers 404 NotFound with upstream details for a missing object', async () => {
    const body = await expectStatus('GET', `${configMaps}/missing`, {}, 404, 'NotFound', /^configmaps "missing" not found$/);
    // The core group is empty, and upstream omits empty fields.
    assert.deepEqual(body.details, { name: 'missing', kind: 'configmaps' });
  });

  it('answers 409 Conflict for a stale resourceVersion and keeps the newer write', async () => {
    const created = (await api.request('POST', configMaps, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cas' }, data: { v: '1' } }) })).json<{ metadata: { resourceVersion: string } }>();
    const first = await api.request('PUT', `${configMaps}/cas`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cas', resourceVersion: created.metadata.resourceVersion }, data: { v: '2' } }) });
    assert.equal(first.status, 200);
    await expectStatus(
      'PUT',
      `${configMaps}/cas`,
      { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cas', resourceVersion: created.metadata.resourceVersion }, data: { v: '3' } }) },
      409,
      'Conflict',
      /^Operation cannot be fulfilled on configmaps "cas": the object has been modified; please apply your changes to the latest version and try again$/,
    );
    assert.equal((await api.request('GET', `${configMaps}/cas`)).json<{ data: { v: string } }>().data.v, '2');
  });

  it('answers 422 Invalid with causes and field paths', async () => {
    const body = await expectStatus('POST', configMaps, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }) }, 422, 'Invalid', /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    assert.equal(body.details?.causes?.[0]?.field, 'metadata.name');
    assert.equal(body.details?.causes?.[0]?.reason, 'FieldValueInvalid');
  });

  it('refuses to create objects in a namespace that does not exist (NamespaceLifecycle)', async () => {
    await expectStatus(
      'POST',
      '/api/v1/namespaces/nowhere/configmaps',
      { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }) },
      404,
      'NotFound',
      /^namespaces "nowhere" not found$/,
    );
  });

  it('folds a Secret\'s stringData into data', async () => {
    const r = await api.request('POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sd' }, stringData: { p: 'q' } }),
    });
    assert.equal(r.status, 201, r.text);
    const secret = r.json<{ data: Record<string, string>; stringData?: unknown; type: string }>();
    assert.deepEqual(secret.data, { p: 'cQ==' });
    assert.equal(secret.stringData, undefined);
    assert.equal(secret.type, 'Opaque');
  });

  it('binds a pod through the bindings resource, which is create-only (405 otherwise)', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bindme' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await api.request('POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify(pod) })).status, 201);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bindme' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } };
    const bound = await api.request('POST', '/api/v1/namespaces/default/bindings', { body: JSON.stringify(binding) });
    assert.equal(bound.status, 201, bound.text);
    const stored = (await api.request('GET', '/api/v1/namespaces/default/pods/bindme')).json<{ spec: { nodeName: string } }>();
    assert.equal(stored.spec.nodeName, 'node-1');
    await expectStatus('POST', '/api/v1/namespaces/default/bindings', { body: JSON.stringify(binding) }, 409, 'Conflict', /is already assigned to node "node-1"/);
    await expectStatus('GET', '/api/v1/namespaces/default/bindings', {}, 405, 'MethodNotAllowed');
  });

  it('answers 403 to anonymous requests RBAC does not allow, and serves them health and version', async () => {
    const anonymous = new ApiClient(url, pki, { anonymous: true });
    try {
      const refused = await anonymous.request('GET', '/api/v1/namespaces');
      assert.equal(refused.status, 403);
      assert.equal(
        refused.json<{ message: string }>().message,
        'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
      );
      assert.equal((await anonymous.request('GET', '/readyz')).status, 200);
      assert.equal((await anonymous.request('GET', '/version')).json<{ gitVersion: string }>().gitVersion, 'v1.33.0-k8ts.0');
    } finally {
      anonymous.close();
    }
  });

  it('reports per-check health with ?verbose', async () => {
    const r = await api.request('GET', '/readyz?verbose');
    assert.equal(r.status, 200);
    assert.match(r.text, /^\[\+\]ping ok$/m);
    assert.match(r.text, /^\[\+\]etcd ok$/m);
    assert.match(r.text, /readyz check passed/);
    assert.equal((await api.request('GET', '/livez')).text, 'ok');
  });
});
