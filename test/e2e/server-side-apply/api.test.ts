/**
 * Server-side apply and managedFields over plain HTTP and through
 * @kubernetes/client-node: status codes and Status bodies of every error
 * path, apply creating (201) and updating (200), dry run, the manager taken
 * from the User-Agent, a status subresource entry, and clearing managedFields.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { ApiClient, serverUrlOf } from '../testing/api-client.js';

interface Status {
  kind: string;
  reason: string;
  code: number;
  message: string;
  details?: { causes?: { field?: string; reason?: string; message?: string }[] };
}

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

interface Obj {
  metadata: { name: string; resourceVersion?: string; managedFields?: Entry[]; uid?: string };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}

const CM = '/api/v1/namespaces/default/configmaps';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

describe('server-side apply over HTTP', () => {
  let cluster: TestCluster;
  let api: ApiClient;

  before(async () => {
    cluster = await startLeanCluster('ssa-api');
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(cluster.workDir, 'data', 'pki'));
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  const apply = (name: string, body: string, query = 'fieldManager=tester', headers: Record<string, string> = {}) =>
    api.request('PATCH', `${CM}/${name}?${query}`, { body, headers: { ...APPLY, ...headers } });
  const get = async (name: string): Promise<Obj> => (await api.request('GET', `${CM}/${name}`)).json<Obj>();

  it('creates with 201, then updates with 200, from YAML or JSON', async () => {
    const created = await apply('a1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a1\ndata:\n  k: v\n');
    assert.equal(created.status, 201, created.text);
    const again = await apply('a1', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1' }, data: { k: 'w' } }));
    assert.equal(again.status, 200, again.text);
    const o = again.json<Obj>();
    assert.deepEqual(o.data, { k: 'w' });
    assert.deepEqual(o.metadata.managedFields?.map((e) => [e.manager, e.operation]), [['tester', 'Apply']]);
  });

  it('re-applying the same configuration writes nothing (the resourceVersion stays)', async () => {
    const config = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n  labels:\n    l: v\ndata:\n  k: v\n';
    const first = await apply('same', config);
    assert.equal(first.status, 201, first.text);
    const second = await apply('same', config);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json<Obj>().metadata.resourceVersion, first.json<Obj>().metadata.resourceVersion);
    // Nor does a PUT of the object as read.
    const read = await api.request('GET', `${CM}/same`);
    const put = await api.request('PUT', `${CM}/same?fieldManager=editor`, { body: read.text });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json<Obj>().metadata.resourceVersion, first.json<Obj>().metadata.resourceVersion);
  });

  it('a dry-run apply answers the result and stores nothing', async () => {
    const r = await apply('dry', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  k: v\n', 'fieldManager=tester&dryRun=All');
    // Upstream answers 201 for a dry-run create; the generic store's dry run answers 200 (store.ts).
    assert.ok(r.status === 200 || r.status === 201, r.text);
    assert.deepEqual(r.json<Obj>().metadata.managedFields?.map((e) => [e.manager, e.operation]), [['tester', 'Apply']]);
    assert.equal((await api.request('GET', `${CM}/dry`)).status, 404);
  });

  it('answers a conflict with 409 and one FieldManagerConflict cause per field', async () => {
    const created = await api.request('POST', `${CM}?fieldManager=creator`, { body: JSON.stringify({ metadata: { name: 'c1' }, data: { p: '1', q: '2' } }) });
    assert.equal(created.status, 201, created.text);
    const r = await apply('c1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\ndata:\n  p: "9"\n  q: "8"\n');
    assert.equal(r.status, 409);
    const s = r.json<Status>();
    assert.equal(s.reason, 'Conflict');
    assert.equal(s.message, 'Apply failed with 2 conflicts: conflicts with "creator" using v1:\n- .data.p\n- .data.q');
    assert.deepEqual(s.details?.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.data.p' },
      { reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.data.q' },
    ]);
    const forced = await apply('c1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\ndata:\n  p: "9"\n', 'fieldManager=tester&force=true');
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual(forced.json<Obj>().data, { p: '9', q: '2' });
  });

  it('rejects bad options and bad configurations with upstream Status errors', async () => {
    const cases: Array<[Promise<{ status: number; text: string }>, number, string | undefined, string]> = [
      [apply('e1', 'apiVersion: v1\nkind: ConfigMap\n', ''), 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'],
      [
        api.request('PATCH', `${CM}/a1?force=true`, { body: '{}', headers: { 'content-type': 'application/merge-patch+json' } }),
        422,
        'Invalid',
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      ],
      [
        api.request('POST', `${CM}?fieldManager=${'m'.repeat(129)}`, { body: JSON.stringify({ metadata: { name: 'long' } }) }),
        422,
        'Invalid',
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
      ],
      [
        api.request('PUT', `${CM}/a1?fieldManager=a%07b`, { body: JSON.stringify({ metadata: { name: 'a1' } }) }),
        422,
        'Invalid',
        'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)',
      ],
      [apply('e2', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: e2\n'), 400, 'BadRequest', 'invalid object type: /v1, Kind=Secret'],
      [apply('e3', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e3\n  managedFields: []\n'), 400, 'BadRequest', 'metadata.managedFields must be nil'],
      [apply('e4', '- a\n- b\n'), 400, 'BadRequest', 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}'],
      [
        apply('e5', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e5\nspec: {}\n'),
        500,
        undefined,
        'failed to create typed patch object (default/e5; /v1, Kind=ConfigMap): .spec: field not declared in schema',
      ],
      [
        apply('e7', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e7\n  labels:\n    a: true\n    b: 1\nimmutable: "yes"\n'),
        500,
        undefined,
        'failed to create typed patch object (default/e7; /v1, Kind=ConfigMap): errors:\n' +
          '  .metadata.labels.a: expected string, got &value.valueUnstructured{Value:true}\n' +
          '  .metadata.labels.b: expected string, got &value.valueUnstructured{Value:1}\n' +
          '  .immutable: expected boolean, got &{yes}',
      ],
    ];
    for (const [request, code, reason, message] of cases) {
      const r = await request;
      assert.equal(r.status, code, r.text);
      const s = JSON.parse(r.text) as Status;
      assert.equal(s.kind, 'Status');
      assert.equal(s.reason, reason);
      assert.equal(s.message, message);
    }
    const malformed = await apply('e6', 'data: [\n');
    assert.equal(malformed.status, 400, malformed.text);
    assert.match(malformed.json<Status>().message, /^error decoding YAML: /);
    for (const name of ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'long']) assert.equal((await api.request('GET', `${CM}/${name}`)).status, 404, name);
  });

  it('reports duplicate keys: 400 under Strict (nothing stored), warnings by default', async () => {
    const body = '{"apiVersion": "v1", "kind": "ConfigMap",\n "metadata": {"name": "dup"},\n "data": {"a": "1",\n "a": "2"}}';
    const strict = await apply('dup', body, 'fieldManager=tester&fieldValidation=Strict');
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json<Status>().message, 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "a" already set in map');
    assert.equal((await api.request('GET', `${CM}/dup`)).status, 404);
    const warned = await apply('dup', body);
    assert.equal(warned.status, 201, warned.text);
    assert.equal(String(warned.headers.warning), '299 - "line 4: key \\"a\\" already set in map"');
    assert.deepEqual(warned.json<Obj>().data, { a: '2' });
    const empty = await apply('dup', '');
    assert.equal(empty.status, 400);
    assert.equal(empty.json<Status>().message, 'invalid object type: /, Kind=');
  });

  it('names the manager after the User-Agent when the request gives none', async () => {
    const r = await api.request('POST', CM, { body: JSON.stringify({ metadata: { name: 'ua' }, data: { a: '1' } }), headers: { 'user-agent': 'my-controller/v1.2 (linux/amd64)' } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json<Obj>().metadata.managedFields?.map((e) => [e.manager, e.operation, e.apiVersion]), [['my-controller', 'Update', 'v1']]);
  });

  it('records a status write under the status subresource', async () => {
    const ns = await api.request('POST', '/api/v1/namespaces?fieldManager=creator', { body: JSON.stringify({ metadata: { name: 'ssa-status' } }) });
    assert.equal(ns.status, 201, ns.text);
    const patched = await api.request('PATCH', '/api/v1/namespaces/ssa-status/status?fieldManager=status-writer', {
      body: JSON.stringify({ status: { conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False' }] } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    const entry = patched.json<Obj>().metadata.managedFields?.find((e) => e.manager === 'status-writer');
    assert.equal(entry?.subresource, 'status');
    assert.equal(entry?.operation, 'Update');
  });

  it('applies to the status subresource, recorded as an Apply entry of that subresource', async () => {
    const r = await api.request('PATCH', '/api/v1/namespaces/ssa-status/status?fieldManager=status-applier&force=true', {
      body: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ssa-status\nstatus:\n  conditions:\n  - type: NamespaceContentRemaining\n    status: "False"\n',
      headers: APPLY,
    });
    assert.equal(r.status, 200, r.text);
    const entry = r.json<Obj>().metadata.managedFields?.find((e) => e.manager === 'status-applier');
    assert.deepEqual([entry?.operation, entry?.subresource], ['Apply', 'status']);
    assert.deepEqual(entry?.fieldsV1, { 'f:status': { 'f:conditions': { 'k:{"type":"NamespaceContentRemaining"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } });
  });

  it('keys service ports by port and the defaulted protocol', async () => {
    const svc = (targetPort: number): string =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: ssa-svc\nspec:\n  selector:\n    app: x\n  ports:\n  - port: 80\n    targetPort: ${targetPort}\n`;
    const path = '/api/v1/namespaces/default/services/ssa-svc?fieldManager=tester';
    assert.equal((await api.request('PATCH', path, { body: svc(8080), headers: APPLY })).status, 201);
    const r = await api.request('PATCH', path, { body: svc(9090), headers: APPLY });
    assert.equal(r.status, 200, r.text);
    const o = r.json<Obj & { spec: { ports: Array<{ port: number; protocol: string; targetPort: number }> } }>();
    assert.deepEqual(o.spec.ports.map((p) => [p.port, p.protocol, p.targetPort]), [[80, 'TCP', 9090]]);
    const applier = o.metadata.managedFields?.find((e) => e.manager === 'tester');
    assert.deepEqual((applier?.fieldsV1['f:spec'] as Record<string, unknown>)['f:ports'], {
      'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} },
    });
  });

  it('clears managedFields when an update sends [{}], and keeps them when it sends none', async () => {
    const before = await get('a1');
    const kept = await api.request('PUT', `${CM}/a1?fieldManager=editor`, { body: JSON.stringify({ metadata: { name: 'a1' }, data: { k: 'w', n: '1' } }) });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.json<Obj>().metadata.managedFields?.map((e) => e.manager), ['tester', 'editor']);
    assert.ok(before.metadata.managedFields !== undefined);
    const cleared = await api.request('PATCH', `${CM}/a1`, { body: JSON.stringify({ metadata: { managedFields: [{}] } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.json<Obj>().metadata.managedFields, undefined);
  });

  it('applies through @kubernetes/client-node', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-client-node', namespace: 'default' }, data: { a: '1' } };
    await objects.patch(spec, undefined, undefined, 'client-node', false, k8s.PatchStrategy.ServerSideApply);
    const applied: k8s.V1ConfigMap = await objects.patch<k8s.V1ConfigMap>({ ...spec, data: { b: '2' } }, undefined, undefined, 'client-node', false, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(applied.data, { b: '2' });
    assert.deepEqual(applied.metadata?.managedFields?.map((e) => [e.manager, e.operation]), [['client-node', 'Apply']]);
  });
});
