/**
 * API machinery details clients see over raw HTTP, each as upstream answers
 * it: what a DELETE returns, pretty printing, field selectors per kind,
 * media types a watch or a transform cannot serve, remainingItemCount.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../src/client/testing/wait-for.js';
import { ApiClient, serverUrlOf } from './testing/api-client.js';
import type { TestCluster } from './kubectl/cluster.js';
import { startLeanCluster } from './kubectl/lean-cluster.js';

type Json = Record<string, unknown>;

describe('API machinery', () => {
  let cluster: TestCluster | undefined;
  let api: ApiClient;
  before(async () => {
    cluster = await startLeanCluster('machinery');
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(cluster.workDir, 'data', 'pki'));
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  const configMaps = '/api/v1/namespaces/default/configmaps';
  const create = async (path: string, body: Json): Promise<Json> => {
    const r = await api.request('POST', path, { body: JSON.stringify(body) });
    assert.equal(r.status, 201, r.text);
    return r.json<Json>();
  };

  it('answers a DELETE that removes a configmap with a Success Status, and a pod-like kind with the object', async () => {
    const cm = await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-status' } });
    const uid = (cm.metadata as Json).uid;
    const dry = await api.request('DELETE', `${configMaps}/del-status?dryRun=All`);
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(dry.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'del-status', kind: 'configmaps', uid } });
    const gone = await api.request('DELETE', `${configMaps}/del-status`);
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(gone.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'del-status', kind: 'configmaps', uid } });
    // A named group goes in details.group.
    const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
    await create(roles, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'del-role' }, rules: [] });
    const role = (await api.request('DELETE', `${roles}/del-role`)).json<Json>();
    assert.deepEqual([role.kind, (role.details as Json).group, (role.details as Json).kind], ['Status', 'rbac.authorization.k8s.io', 'roles']);
    // Service accounts keep upstream's ReturnDeletedObject: the object comes back.
    const serviceAccounts = '/api/v1/namespaces/default/serviceaccounts';
    await create(serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'del-sa' } });
    const sa = (await api.request('DELETE', `${serviceAccounts}/del-sa`)).json<Json>();
    assert.deepEqual([sa.kind, (sa.metadata as Json).name], ['ServiceAccount', 'del-sa']);
    // An object a finalizer holds is only marked: the object comes back, with its deletionTimestamp.
    await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-held', finalizers: ['example.com/hold'] } });
    const held = (await api.request('DELETE', `${configMaps}/del-held`)).json<Json>();
    assert.equal(held.kind, 'ConfigMap');
    assert.ok((held.metadata as Json).deletionTimestamp);
    const patch = await api.request('PATCH', `${configMaps}/del-held`, { body: '{"metadata":{"finalizers":null}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patch.status, 200, patch.text);
  });

  it('selects services by spec.clusterIP and spec.type, and takes the pod field labels upstream’s conversion takes', async () => {
    const services = (q: string): Promise<{ status: number; text: string; json: <T>() => T }> => api.request('GET', `/api/v1/namespaces/default/services?fieldSelector=${encodeURIComponent(q)}`);
    const names = async (q: string): Promise<unknown[]> => {
      const r = await services(q);
      assert.equal(r.status, 200, r.text);
      return r.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name);
    };
    assert.deepEqual(await names('spec.type=ClusterIP,spec.clusterIP!=None'), ['kubernetes']);
    assert.deepEqual(await names('spec.type=NodePort'), []);
    assert.deepEqual(await names('spec.clusterIP=None'), []);
    const bad = await services('spec.ports=1');
    assert.equal(bad.status, 400);
    assert.equal(bad.json<Json>().message, 'field label not supported: spec.ports');
    for (const q of ['spec.host=node-1', 'status.podIPs=']) {
      const r = await api.request('GET', `/api/v1/pods?fieldSelector=${encodeURIComponent(q)}`);
      assert.equal(r.status, 200, `${q}: ${r.text}`);
    }
  });

  it('indents JSON for ?pretty=true and for curl, as upstream’s isPrettyPrint, and not otherwise', async () => {
    const pretty = await api.request('GET', `${configMaps}?pretty=true`);
    assert.match(pretty.text, /^\{\n  "apiVersion": "v1",\n  "kind": "ConfigMapList",/);
    const curl = await api.request('GET', '/api/v1/namespaces/default/configmaps/missing', { headers: { 'user-agent': 'curl/8.5.0' } });
    assert.equal(curl.status, 404);
    assert.match(curl.text, /^\{\n  "kind": "Status",\n/);
    const notPretty = await api.request('GET', `${configMaps}?pretty=false`, { headers: { 'user-agent': 'curl/8.5.0' } });
    assert.match(notPretty.text, /^\{"apiVersion":"v1","kind":"ConfigMapList"/);
    const plain = await api.request('GET', configMaps, { headers: { 'user-agent': 'kubectl/v1.34.0 (linux/amd64) kubernetes/abcdef' } });
    assert.match(plain.text, /^\{"apiVersion":"v1"/);
  });

  it('creates from the first document of a YAML body of several, as upstream’s single YAML Unmarshal', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-second\n';
    const r = await api.request('POST', configMaps, { body, headers: { 'content-type': 'application/yaml' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json<{ metadata: { name: string } }>().metadata.name, 'yaml-first');
    assert.equal((await api.request('GET', `${configMaps}/yaml-second`)).status, 404);
  });

  it('refuses a watch in YAML (no stream serializer) with 406', async () => {
    const r = await api.request('GET', `${configMaps}?watch=1&timeoutSeconds=1`, { headers: { accept: 'application/yaml' } });
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json<Json>().message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });

  it('answers 406 when PartialObjectMetadata is asked of a list, or PartialObjectMetadataList of one object', async () => {
    const one = (as: string): Record<string, string> => ({ accept: `application/json;as=${as};g=meta.k8s.io;v=v1` });
    const list = await api.request('GET', configMaps, { headers: one('PartialObjectMetadata') });
    assert.equal(list.status, 406, list.text);
    assert.equal(list.json<Json>().message, 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)');
    const single = await api.request('GET', '/api/v1/namespaces/default/services/kubernetes', { headers: one('PartialObjectMetadataList') });
    assert.equal(single.status, 406, single.text);
    assert.equal(single.json<Json>().message, 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.Service)');
    assert.equal((await api.request('GET', configMaps, { headers: one('PartialObjectMetadataList') })).json<Json>().kind, 'PartialObjectMetadataList');
    assert.equal((await api.request('GET', '/api/v1/namespaces/default/services/kubernetes', { headers: one('PartialObjectMetadata') })).json<Json>().kind, 'PartialObjectMetadata');
  });
  it('answers ListOptions that break upstream’s rules with 422 Invalid of ListOptions.meta.k8s.io', async () => {
    const r = await api.request('GET', `${configMaps}?resourceVersionMatch=NotOlderThan`);
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' }],
      },
      code: 422,
    });
    const w = await api.request('GET', `${configMaps}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(w.status, 422, w.text);
    assert.equal(w.json<Json>().message, 'ListOptions.meta.k8s.io "" is invalid: allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
  });
  it('reads resourceVersion as upstream’s versioner: 422 when it does not parse, 504 when it is newer than the store', async () => {
    await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rv-probe' } });
    for (const path of [`${configMaps}/rv-probe?resourceVersion=abc`, `${configMaps}?resourceVersion=abc`, `${configMaps}?resourceVersion=-1&resourceVersionMatch=NotOlderThan`]) {
      const r = await api.request('GET', path);
      assert.equal(r.status, 422, `${path}: ${r.text}`);
      const rv = new URLSearchParams(path.split('?')[1]).get('resourceVersion');
      assert.deepEqual(r.json(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`,
        reason: 'Invalid',
        code: 422,
      });
    }
    const current = Number((await api.request('GET', configMaps)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
    const future = current + 1000;
    for (const path of [`${configMaps}/rv-probe?resourceVersion=${future}`, `${configMaps}?resourceVersion=${future}&resourceVersionMatch=Exact`]) {
      const r = await api.request('GET', path);
      assert.equal(r.status, 504, `${path}: ${r.text}`);
      assert.match(r.json<Json>().message as string, new RegExp(`^Too large resource version: ${future}, current: \\d+$`));
    }
    assert.equal((await api.request('GET', `${configMaps}/rv-probe?resourceVersion=${current}`)).status, 200);
  });
  it('counts remainingItemCount on every page of an unfiltered paged list, and leaves it out when a selector filters', async () => {
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paging' } });
    const paged = '/api/v1/namespaces/paging/configmaps';
    for (let i = 1; i <= 5; i++) await create(paged, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { n: String(i) } } });
    type Meta = { continue?: string; remainingItemCount?: number };
    const page = async (query: string): Promise<Meta> => {
      const r = await api.request('GET', `${paged}?${query}`);
      assert.equal(r.status, 200, r.text);
      return r.json<{ metadata: Meta }>().metadata;
    };
    const first = await page('limit=2');
    assert.equal(first.remainingItemCount, 3);
    const second = await page(`limit=2&continue=${encodeURIComponent(first.continue!)}`);
    assert.equal(second.remainingItemCount, 1);
    const last = await page(`limit=2&continue=${encodeURIComponent(second.continue!)}`);
    assert.deepEqual([last.continue, last.remainingItemCount], [undefined, undefined]);
    const filtered = await page('limit=2&labelSelector=n');
    assert.ok(filtered.continue !== undefined);
    assert.equal(filtered.remainingItemCount, undefined);
    // The same from storage, without the watch cache: an exact resourceVersion.
    const exact = await page('limit=2&resourceVersion=' + (await api.request('GET', paged)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
    assert.equal(exact.remainingItemCount, 3);
  });
  it('answers a Table or PartialObjectMetadata asked for in meta.k8s.io/v1beta1 in that version', async () => {
    const accept = (as: string): Record<string, string> => ({ accept: `application/json;as=${as};g=meta.k8s.io;v=v1beta1` });
    const table = (await api.request('GET', `${configMaps}?limit=1`, { headers: accept('Table') })).json<{ apiVersion: string; rows: { object: Json }[] }>();
    assert.equal(table.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual([table.rows[0]!.object.kind, table.rows[0]!.object.apiVersion], ['PartialObjectMetadata', 'meta.k8s.io/v1beta1']);
    const list = (await api.request('GET', configMaps, { headers: accept('PartialObjectMetadataList') })).json<{ apiVersion: string; items: Json[] }>();
    assert.deepEqual([list.apiVersion, list.items[0]!.apiVersion], ['meta.k8s.io/v1beta1', 'meta.k8s.io/v1beta1']);
    const v1 = (await api.request('GET', configMaps, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } })).json<Json>();
    assert.equal(v1.apiVersion, 'meta.k8s.io/v1');
  });
  it('lets a PUT create where upstream’s strategy allows it, and needs a Lease update to carry its resourceVersion', async () => {
    const put = (path: string, body: Json) => api.request('PUT', path, { body: JSON.stringify(body) });
    const role = await put('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/put-created', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'put-created' }, rules: [] });
    assert.equal(role.status, 201, role.text);
    assert.equal((await put(`${configMaps}/put-missing`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'put-missing' } })).status, 404);
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/default/leases/put-lease';
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'put-lease' } };
    assert.equal((await put(leasePath, lease)).status, 201);
    const again = await put(leasePath, lease);
    assert.equal(again.status, 422, again.text);
    assert.equal(again.json<Json>().message, 'leases.coordination.k8s.io "put-lease" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  });
  it('drops a repeated owner reference with upstream’s warning, and checks DeleteOptions as upstream', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'dup-uid' };
    const r = await api.request('POST', `${configMaps}?dryRun=All`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup-owner', ownerReferences: [ref, ref] } }) });
    assert.equal(r.status, 201, r.text);
    assert.equal(((r.json<Json>().metadata as Json).ownerReferences as unknown[]).length, 1);
    assert.match(String(r.headers.warning), /Duplicate UIDs: \[\\"dup-uid\\"\]/);
    await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-opts' } });
    const bad = await api.request('DELETE', `${configMaps}/del-opts`, { body: JSON.stringify({ propagationPolicy: 'Sideways' }) });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.json<Json>().message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
    const both = await api.request('DELETE', `${configMaps}/del-opts`, { body: JSON.stringify({ orphanDependents: true, propagationPolicy: 'Background' }) });
    assert.equal(both.status, 422, both.text);
    assert.equal((await api.request('GET', `${configMaps}/del-opts`)).status, 200);
  });
  it('starts a watch with sendInitialEvents=false at the current state without it, and answers a future resourceVersion with an ERROR event', async () => {
    await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wl-present' } });
    const quiet = await api.request('GET', `${configMaps}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`);
    assert.equal(quiet.status, 200);
    assert.equal(quiet.text, '');
    const future = await api.request('GET', `${configMaps}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=999999999&timeoutSeconds=1`);
    assert.equal(future.status, 200);
    const event = JSON.parse(future.text.trim()) as { type: string; object: Json };
    assert.deepEqual([event.type, event.object.code, event.object.reason], ['ERROR', 504, 'Timeout']);
  });
  it('authorizes a list or watch by metadata.name against RBAC resourceNames, and watches one object by the /watch/ path', async () => {
    await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rn-one' } });
    await create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rn-two' } });
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'rn-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], resourceNames: ['rn-one'] }],
    });
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rn-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rn-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'rn-user' }],
    });
    const as = { 'impersonate-user': 'rn-user' };
    const allowed = async (path: string): Promise<number> => {
      let status = 0;
      // A 403 for rn-one only means the authorizer's informer has not seen the binding yet.
      await waitFor(
        async () => {
          status = (await api.request('GET', path, { headers: as })).status;
          return status !== 403 || !path.includes('rn-one');
        },
        { timeoutMs: 30_000, intervalMs: 50, description: `the authorizer sees the RoleBinding (${path})` },
      );
      return status;
    };
    assert.equal(await allowed(`${configMaps}?fieldSelector=metadata.name%3Drn-one`), 200);
    assert.equal(await allowed(`${configMaps}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Drn-one`), 200);
    assert.equal(await allowed(`${configMaps}?fieldSelector=metadata.name%3Drn-two`), 403);
    assert.equal(await allowed(configMaps), 403);
    const one = await api.request('GET', '/api/v1/watch/namespaces/default/configmaps/rn-one?timeoutSeconds=1');
    assert.deepEqual(
      one.text.trim().split('\n').map((l) => ((JSON.parse(l) as { object: Json }).object.metadata as Json).name),
      ['rn-one'],
    );
    const mismatch = await api.request('GET', '/api/v1/watch/namespaces/default/configmaps/rn-one?timeoutSeconds=1&fieldSelector=metadata.name%3Drn-two');
    assert.equal(mismatch.status, 400, mismatch.text);
    assert.equal(mismatch.json<Json>().message, "fieldSelector metadata.name doesn't match requested name");
  });
});

