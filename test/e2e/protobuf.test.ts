/**
 * Kubernetes protobuf (application/vnd.kubernetes.protobuf) end to end:
 *
 * - kubectl 1.33 sends its typed creates as protobuf, kubectl 1.31 as JSON;
 *   both go through a recording proxy, so the test sees the exact bodies. The
 *   protobuf body must decode to the JSON body, and the objects the server
 *   answers with (`-o json`, the stored object) must be the same.
 * - A protobuf round trip over HTTPS with raw requests: create, get, list,
 *   watch (length-framed WatchEvents), PartialObjectMetadata, and errors
 *   answered as protobuf Status.
 *
 * Set K8TS_CAPTURE_DIR to write the captured bodies (NN-kind.pb and the
 * matching 1.31 JSON) there: that is how src/api/protobuf/testdata/kubectl-1.33/
 * was made.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeObject, encodeObject, PROTOBUF_MAGIC } from '../../src/api/protobuf/envelope.js';
import type { TestCluster } from './kubectl/cluster.js';
import { startLeanCluster } from './kubectl/lean-cluster.js';
import { serverUrlOf } from './testing/api-client.js';
import { newKubectl, type Kubectl } from './testing/kubectl.js';
import { RawApiClient, startRecordingProxy, type RecordedRequest, type RecordingProxy } from './testing/protobuf-client.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The typed creates kubectl 1.32+ sends as protobuf; NS and SUFFIX are filled in per run. */
const CREATES: readonly { kind: string; args: string[] }[] = [
  { kind: 'Namespace', args: ['create', 'namespace', 'NS'] },
  { kind: 'ConfigMap', args: ['create', 'configmap', 'cm', '--from-literal=a=b', '--from-file=bin=BINFILE', '-n', 'NS'] },
  { kind: 'Secret', args: ['create', 'secret', 'generic', 'sec', '--from-literal=password=s3cr3t', '-n', 'NS'] },
  { kind: 'Deployment', args: ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '--port=80', '-n', 'NS'] },
  { kind: 'Service', args: ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080', '-n', 'NS'] },
  { kind: 'ServiceAccount', args: ['create', 'serviceaccount', 'robot', '-n', 'NS'] },
  { kind: 'Job', args: ['create', 'job', 'once', '--image=busybox', '-n', 'NS', '--', 'echo', 'hi'] },
  { kind: 'CronJob', args: ['create', 'cronjob', 'often', '--image=busybox', '--schedule=*/5 * * * *', '-n', 'NS'] },
  { kind: 'Role', args: ['create', 'role', 'reader', '--verb=get,list', '--resource=pods', '-n', 'NS'] },
  { kind: 'RoleBinding', args: ['create', 'rolebinding', 'reader', '--role=reader', '--user=alice', '-n', 'NS'] },
  { kind: 'ClusterRole', args: ['create', 'clusterrole', 'node-reader-SUFFIX', '--verb=get', '--resource=nodes'] },
  { kind: 'ClusterRoleBinding', args: ['create', 'clusterrolebinding', 'node-reader-SUFFIX', '--clusterrole=node-reader-SUFFIX', '--user=alice'] },
  { kind: 'PriorityClass', args: ['create', 'priorityclass', 'high-SUFFIX', '--value=1000', '--description=important'] },
  { kind: 'ResourceQuota', args: ['create', 'quota', 'limits', '--hard=pods=10,cpu=2,memory=1Gi', '-n', 'NS'] },
  { kind: 'PodDisruptionBudget', args: ['create', 'poddisruptionbudget', 'pdb', '--selector=app=web', '--min-available=1', '-n', 'NS'] },
];

/** Replace what differs between two runs (uids, times, allocated IPs, the run's names) so objects compare. */
function normalize(object: unknown, suffix: string): unknown {
  const uids = new Set<string>();
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) k === 'uid' && typeof x === 'string' ? uids.add(x) : collect(x);
  };
  collect(object);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'string') return uids.has(v) ? '<uid>' : v.replaceAll(suffix, '<run>');
    if (typeof v !== 'object' || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (['uid', 'resourceVersion', 'creationTimestamp', 'time', 'clusterIP', 'clusterIPs'].includes(k)) continue;
      out[k.replaceAll(suffix, '<run>')] = walk(x);
    }
    return out;
  };
  return walk(object);
}

/** The JSON body kubectl 1.31 sends, as upstream reads it: `creationTimestamp: null` is a zero time, which upstream's Go type now omits. */
function withoutNullTimestamps(body: unknown): unknown {
  const copy = structuredClone(body) as { metadata?: Record<string, unknown> };
  if (copy.metadata?.creationTimestamp === null) delete copy.metadata.creationTimestamp;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'creationTimestamp' && x === null) delete (v as Record<string, unknown>)[k];
        else walk(x);
      }
    }
  };
  walk(copy);
  return copy;
}

describe('protobuf', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let proxy: RecordingProxy;
  let client: RawApiClient;
  let pkiDir: string;

  before(async () => {
    cluster = await startLeanCluster('protobuf');
    pkiDir = join(dirname(cluster.kubeconfig), 'pki');
    proxy = await startRecordingProxy(serverUrlOf(cluster.kubeconfig), pkiDir, cluster.workDir);
    client = new RawApiClient(serverUrlOf(cluster.kubeconfig), pkiDir);
  });
  after(async () => {
    client?.close();
    await proxy?.stop();
    await cluster?.stop();
  });

  async function runCreates(kubectl: Kubectl, suffix: string): Promise<{ requests: RecordedRequest[]; created: unknown[] }> {
    const binFile = join(cluster.workDir, 'payload.bin');
    await writeFile(binFile, Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]));
    const ns = `proto-${suffix}`;
    const requests: RecordedRequest[] = [];
    const created: unknown[] = [];
    for (const { args } of CREATES) {
      const filled = args.map((a) => a.replaceAll('BINFILE', binFile).replace(/^NS$/, ns).replaceAll('SUFFIX', suffix));
      const before = proxy.requests.length;
      const dashes = filled.includes('--') ? filled.indexOf('--') : filled.length;
      const out = await kubectl.ok(...filled.slice(0, dashes), '-o', 'json', ...filled.slice(dashes));
      created.push(JSON.parse(out));
      const writes = proxy.requests.slice(before);
      assert.equal(writes.length, 1, `${filled.join(' ')}: one write expected, got ${writes.map((w) => `${w.method} ${w.path}`).join(', ')}`);
      requests.push(writes[0]!);
    }
    return { requests, created };
  }

  it('kubectl 1.33 (protobuf) and 1.31 (JSON) creates store the same objects', async () => {
    const pb = await runCreates(newKubectl('1.33', proxy.kubeconfig), 'pb');
    const js = await runCreates(newKubectl('1.31', proxy.kubeconfig), 'js');
    const captureDir = process.env.K8TS_CAPTURE_DIR;
    if (captureDir !== undefined) await mkdir(captureDir, { recursive: true });
    for (const [i, { kind }] of CREATES.entries()) {
      const p = pb.requests[i]!;
      const j = js.requests[i]!;
      assert.equal(p.contentType, PROTOBUF, `kubectl 1.33 create ${kind}`);
      // kubectl 1.33 prefers protobuf answers too, and printed (-o json) the object it decoded from ours.
      assert.match(p.accept, /^application\/vnd\.kubernetes\.protobuf/, `kubectl 1.33 create ${kind} accepts`);
      assert.deepEqual(p.response, { status: 201, contentType: PROTOBUF }, `answer to create ${kind}`);
      assert.ok(p.body.subarray(0, 4).equals(PROTOBUF_MAGIC), `kubectl 1.33 create ${kind}: the k8s\\0 magic`);
      assert.equal(j.contentType, 'application/json', `kubectl 1.31 create ${kind}`);
      const decoded = decodeObject(p.body);
      assert.equal(decoded.kind, kind);
      // The protobuf body says what the JSON body says (names aside).
      assert.deepEqual(normalize(decoded, 'pb'), normalize(withoutNullTimestamps(JSON.parse(j.body.toString('utf8'))), 'js'), `request body of create ${kind}`);
      // And the server stored the same object.
      assert.deepEqual(normalize(pb.created[i], 'pb'), normalize(js.created[i], 'js'), `stored ${kind}`);
      if (captureDir !== undefined) {
        const base = join(captureDir, `${String(i + 1).padStart(2, '0')}-${kind.toLowerCase()}`);
        await writeFile(`${base}.pb`, p.body);
        await writeFile(`${base}.json`, `${JSON.stringify(JSON.parse(j.body.toString('utf8')), null, 2)}\n`);
      }
    }
  });

  it('create, get and list in protobuf', async () => {
    const ns = 'proto-raw';
    const created = await client.request('POST', '/api/v1/namespaces', {
      body: encodeObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
      headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
    });
    assert.equal(created.status, 201, created.body.toString());
    assert.equal(created.headers['content-type'], PROTOBUF);
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: ns, labels: { app: 'web' } },
      data: { mode: 'fast', empty: '' },
      binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString('base64') },
      immutable: false,
    };
    const post = await client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: encodeObject(cm), headers: { 'content-type': PROTOBUF, accept: PROTOBUF } });
    assert.equal(post.status, 201, post.body.toString());
    const stored = decodeObject(post.body) as typeof cm & { metadata: { uid: string; resourceVersion: string } };
    assert.deepEqual(stored.data, cm.data);
    assert.deepEqual(stored.binaryData, cm.binaryData);
    assert.equal(stored.immutable, false, 'a pointer set to false survives');
    assert.ok(stored.metadata.uid !== '');

    const got = await client.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`, { headers: { accept: PROTOBUF } });
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], PROTOBUF);
    const asJson = await client.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`, { headers: { accept: 'application/json' } });
    assert.deepEqual(decodeObject(got.body), JSON.parse(asJson.body.toString('utf8')), 'the protobuf answer decodes to the JSON answer');

    const list = await client.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: `${PROTOBUF}, application/json` } });
    assert.equal(list.status, 200);
    const decodedList = decodeObject(list.body) as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    assert.equal(decodedList.kind, 'ConfigMapList');
    assert.ok(decodedList.metadata.resourceVersion !== '');
    assert.ok(decodedList.items.some((i) => i.metadata.name === 'settings'));

    const partial = await client.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` } });
    assert.equal(partial.status, 200);
    assert.equal(partial.headers['content-type'], PROTOBUF, 'the bare media type, as upstream');
    const partialList = decodeObject(partial.body) as { kind: string; apiVersion: string; items: { kind?: string; metadata: { name: string } }[] };
    assert.equal(partialList.kind, 'PartialObjectMetadataList');
    assert.equal(partialList.apiVersion, 'meta.k8s.io/v1');
    assert.ok(partialList.items.some((i) => i.metadata.name === 'settings'));

    // PUT in protobuf too.
    const update = await client.request('PUT', `/api/v1/namespaces/${ns}/configmaps/settings`, {
      body: encodeObject({ ...stored, data: { mode: 'slow' } }),
      headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
    });
    assert.equal(update.status, 200, update.body.toString());
    assert.deepEqual((decodeObject(update.body) as { data: unknown }).data, { mode: 'slow' });

    // DELETE with DeleteOptions in protobuf, as client-go's typed clients send them: a dry run leaves the object.
    const dryDelete = await client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/settings`, {
      body: encodeObject({ apiVersion: 'v1', kind: 'DeleteOptions', dryRun: ['All'], gracePeriodSeconds: 0 }),
      headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
    });
    assert.equal(dryDelete.status, 200, dryDelete.body.toString());
    assert.equal((await client.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)).status, 200);
    const badDelete = await client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/settings`, { body: Buffer.from('{"dryRun":["All"]}'), headers: { 'content-type': PROTOBUF } });
    assert.equal(badDelete.status, 400);
    assert.match(JSON.parse(badDelete.body.toString('utf8')).message, /^error decoding the request body as protobuf: provided data does not appear to be a protobuf message/);
    const deleted = await client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/settings`, {
      body: encodeObject({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: stored.metadata.uid } }),
      headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
    });
    assert.equal(deleted.status, 200, deleted.body.toString());
    assert.equal((await client.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)).status, 404);
  });

  it('a watch in protobuf streams length-framed WatchEvents', async () => {
    const ns = 'proto-watch';
    await client.request('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), headers: { 'content-type': 'application/json' } });
    const list = await client.request('GET', `/api/v1/namespaces/${ns}/secrets`, { headers: { accept: PROTOBUF } });
    const rv = (decodeObject(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watch = await client.protobufWatch(`/api/v1/namespaces/${ns}/secrets?watch=true&resourceVersion=${rv}`);
    const metadataWatch = await client.protobufWatch(`/api/v1/namespaces/${ns}/secrets?watch=true&resourceVersion=${rv}`, `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1`);
    assert.equal(watch.status, 200);
    assert.equal(metadataWatch.contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
    assert.equal(watch.contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: ns }, data: { key: Buffer.from('value').toString('base64') }, type: 'Opaque' };
    const created = await client.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: encodeObject(secret), headers: { 'content-type': PROTOBUF, accept: PROTOBUF } });
    assert.equal(created.status, 201, created.body.toString());
    const stored = decodeObject(created.body);
    await client.request('PUT', `/api/v1/namespaces/${ns}/secrets/token`, { body: encodeObject({ ...stored, data: { key: Buffer.from('other').toString('base64') } }), headers: { 'content-type': PROTOBUF } });
    await client.request('DELETE', `/api/v1/namespaces/${ns}/secrets/token`);
    const events = await watch.next(3);
    watch.close();
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.deepEqual(events.map((e) => (e.object.data as { key: string }).key), ['dmFsdWU=', 'b3RoZXI=', 'b3RoZXI=']);
    assert.equal(events[0]!.object.kind, 'Secret');
    const metadataEvents = await metadataWatch.next(3);
    metadataWatch.close();
    assert.deepEqual(metadataEvents.map((e) => [e.type, e.object.kind, (e.object.metadata as { name: string }).name, 'data' in e.object]), [
      ['ADDED', 'PartialObjectMetadata', 'token', false],
      ['MODIFIED', 'PartialObjectMetadata', 'token', false],
      ['DELETED', 'PartialObjectMetadata', 'token', false],
    ]);
  });

  it('errors are protobuf Status objects when the client accepts protobuf', async () => {
    const missing = await client.request('GET', '/api/v1/namespaces/default/configmaps/absent', { headers: { accept: `${PROTOBUF}, application/json` } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], PROTOBUF);
    assert.deepEqual(decodeObject(missing.body), {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "absent" not found',
      reason: 'NotFound',
      details: { name: 'absent', kind: 'configmaps' },
      code: 404,
    });

    const garbage = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: Buffer.from('not protobuf'), headers: { 'content-type': PROTOBUF } });
    assert.equal(garbage.status, 400);
    assert.equal(
      JSON.parse(garbage.body.toString('utf8')).message,
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6e6f742070726f746f627566)',
    );

    const empty = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: Buffer.alloc(0), headers: { 'content-type': PROTOBUF } });
    assert.equal(empty.status, 400);
    assert.equal(JSON.parse(empty.body.toString('utf8')).message, 'the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)');

    const wrongKind = await client.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: encodeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }),
      headers: { 'content-type': PROTOBUF },
    });
    assert.equal(wrongKind.status, 400);
    assert.match(JSON.parse(wrongKind.body.toString('utf8')).message, /^Secret in version "v1" cannot be handled as a ConfigMap/);

    const truncated = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cut' }, data: { a: 'b' } });
    const cut = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: truncated.subarray(0, truncated.length - 3), headers: { 'content-type': PROTOBUF } });
    assert.equal(cut.status, 400);
    assert.match(JSON.parse(cut.body.toString('utf8')).message, /unexpected EOF/);

    // Protobuf has no strict decoding upstream: fieldValidation=Strict accepts the body; a bad value is still a 422.
    const strict = await client.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
      body: encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, data: { a: 'b' } }),
      headers: { 'content-type': PROTOBUF },
    });
    assert.equal(strict.status, 201, strict.body.toString());
    assert.equal(strict.headers.warning, undefined);
    const bogus = await client.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Bogus', {
      body: encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bogus' } }),
      headers: { 'content-type': PROTOBUF },
    });
    assert.equal(bogus.status, 422);

    // As upstream, a Table is only served in JSON or YAML.
    const table = await client.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1` } });
    assert.equal(table.status, 406);
    assert.equal(
      JSON.parse(table.body.toString('utf8')).message,
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });
});
