/**
 * core/v1 and events.k8s.io/v1 Events are one stored object served in two
 * shapes: what one version writes the other reads (raw HTTPS), watches in both
 * versions see the same changes each in its own shape, each version has its
 * own field labels, validation and discovery entry, and kubectl 1.33 and 1.27
 * list them with `get events`, `get events.v1.events.k8s.io` and `events`.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from './kubectl/cluster.js';
import { startLeanCluster } from './kubectl/lean-cluster.js';
import { ApiClient, serverUrlOf, type ApiResponse } from './testing/api-client.js';
import { newKubectl, type KubectlVersion } from './testing/kubectl.js';

type Json = Record<string, unknown>;

const CORE = '/api/v1/namespaces/default/events';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const now = (): string => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const seconds = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** An old-style event as a core/v1 recorder writes it. */
const coreEvent = (name: string, object = 'web-1'): Json => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'Pod', name: object, namespace: 'default', apiVersion: 'v1' },
  reason: 'Pulled',
  message: 'Container image "nginx" already present on machine',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: seconds(),
  lastTimestamp: seconds(),
  count: 3,
  type: 'Normal',
});

/** A new-style event as an events.k8s.io/v1 recorder writes it. */
const newEvent = (name: string): Json => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  eventTime: now(),
  reportingController: 'example.com/deployer',
  reportingInstance: 'deployer-1',
  action: 'Scale',
  reason: 'ScalingUp',
  regarding: { kind: 'Deployment', name: 'web', namespace: 'default', apiVersion: 'apps/v1' },
  note: 'Scaled up to 3 replicas',
  type: 'Normal',
});

async function json(response: Promise<ApiResponse>, status: number): Promise<Json> {
  const r = await response;
  assert.equal(r.status, status, r.text);
  return r.json();
}

/** Wait (with a deadline) until a watch has received `count` lines; returns them parsed. */
async function watchLines(watch: { lines: string[] }, count: number): Promise<{ type: string; object: Json }[]> {
  const deadline = Date.now() + 10_000;
  while (watch.lines.length < count) {
    if (Date.now() > deadline) throw new Error(`watch got ${watch.lines.length} of ${count} events: ${watch.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return watch.lines.slice(0, count).map((l) => JSON.parse(l) as { type: string; object: Json });
}

describe('Events in core/v1 and events.k8s.io/v1', () => {
  let cluster: TestCluster;
  let api: ApiClient;
  before(async () => {
    cluster = await startLeanCluster('events');
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(cluster.workDir, 'data', 'pki'));
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  it('reads an event created through core/v1 as events.k8s.io/v1', async () => {
    const created = await json(api.request('POST', CORE, { body: JSON.stringify(coreEvent('old-1')) }), 201);
    assert.equal(created.apiVersion, 'v1');
    const read = await json(api.request('GET', `${EVENTS}/old-1`), 200);
    assert.equal(read.apiVersion, 'events.k8s.io/v1');
    assert.equal(read.kind, 'Event');
    assert.equal(read.note, 'Container image "nginx" already present on machine');
    assert.deepEqual(read.regarding, { kind: 'Pod', name: 'web-1', namespace: 'default', apiVersion: 'v1' });
    assert.deepEqual(read.deprecatedSource, { component: 'kubelet', host: 'node-1' });
    assert.equal(read.deprecatedCount, 3);
    assert.equal(read.deprecatedFirstTimestamp, created.firstTimestamp);
    assert.equal(read.message, undefined);
    assert.equal(read.involvedObject, undefined);
    assert.equal((read.metadata as Json).resourceVersion, (created.metadata as Json).resourceVersion);
    assert.equal((read.metadata as Json).uid, (created.metadata as Json).uid);
  });

  it('reads an event created through events.k8s.io/v1 as core/v1', async () => {
    const created = await json(api.request('POST', EVENTS, { body: JSON.stringify(newEvent('new-1')) }), 201);
    assert.equal(created.apiVersion, 'events.k8s.io/v1');
    assert.equal(created.note, 'Scaled up to 3 replicas');
    const read = await json(api.request('GET', `${CORE}/new-1`), 200);
    assert.equal(read.apiVersion, 'v1');
    assert.equal(read.message, 'Scaled up to 3 replicas');
    assert.equal(read.reportingComponent, 'example.com/deployer');
    assert.equal(read.reportingInstance, 'deployer-1');
    assert.deepEqual(read.involvedObject, { kind: 'Deployment', name: 'web', namespace: 'default', apiVersion: 'apps/v1' });
    assert.equal(read.eventTime, created.eventTime);
    assert.equal(read.note, undefined);
  });

  it('validates an events.k8s.io/v1 write strictly, with upstream messages, and a core/v1 one by the legacy rules', async () => {
    const { eventTime: _, ...noTime } = newEvent('bad-1');
    const status = await json(api.request('POST', EVENTS, { body: JSON.stringify({ ...noTime, deprecatedCount: 2 }) }), 422);
    assert.equal(status.reason, 'Invalid');
    assert.equal(status.message, 'Event.events.k8s.io "bad-1" is invalid: [eventTime: Required value, count: Invalid value: "": needs to be unset]');
    const long = await json(api.request('POST', EVENTS, { body: JSON.stringify({ ...newEvent('bad-2'), note: 'n'.repeat(1025) }) }), 422);
    assert.equal(long.message, 'Event.events.k8s.io "bad-2" is invalid: message: Invalid value: "": can have at most 1024 characters');
    const noController = await json(api.request('POST', CORE, { body: JSON.stringify({ ...coreEvent('bad-3'), eventTime: now(), action: 'A', reportingInstance: 'i' }) }), 422);
    assert.match(noController.message as string, /^Event "bad-3" is invalid: \[reportingController: Required value, /);
    // The same old-style body is fine through core/v1.
    await json(api.request('POST', CORE, { body: JSON.stringify({ ...coreEvent('legacy-ok'), count: 2 }) }), 201);
    // An events.k8s.io/v1 update may not change the note.
    const changed = await json(api.request('PUT', `${EVENTS}/new-1`, { body: JSON.stringify({ ...newEvent('new-1'), eventTime: (await json(api.request('GET', `${EVENTS}/new-1`), 200)).eventTime, note: 'other' }) }), 422);
    assert.equal(changed.message, 'Event.events.k8s.io "new-1" is invalid: message: Invalid value: "other": field is immutable');
  });

  it('decodes an events.k8s.io/v1 body against its own schema: a core/v1 field is unknown there', async () => {
    const body = JSON.stringify({ ...newEvent('strict-1'), message: 'core/v1 name' });
    const strict = await json(api.request('POST', `${EVENTS}?fieldValidation=Strict`, { body }), 400);
    assert.equal(strict.message, 'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "message"');
    const warned = await api.request('POST', EVENTS, { body });
    assert.equal(warned.status, 201, warned.text);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"message\\""');
    assert.equal(warned.json().note, 'Scaled up to 3 replicas');
    await json(api.request('DELETE', `${EVENTS}/strict-1`), 200);
  });

  it('creates on PUT and accepts updates without resourceVersion, in both versions', async () => {
    const created = await api.request('PUT', `${CORE}/put-1`, { body: JSON.stringify(coreEvent('put-1')) });
    assert.equal(created.status, 201, created.text);
    const updated = await json(api.request('PUT', `${CORE}/put-1`, { body: JSON.stringify({ ...coreEvent('put-1'), count: 4 }) }), 200);
    assert.equal(updated.count, 4);
    const viaEvents = await json(api.request('GET', `${EVENTS}/put-1`), 200);
    assert.equal(viaEvents.deprecatedCount, 4);
    // What a GET returns (with the empty fields Go writes) goes back unchanged under strict decoding, in both versions.
    for (const base of [CORE, EVENTS]) {
      const current = await json(api.request('GET', `${base}/put-1`), 200);
      const replaced = await api.request('PUT', `${base}/put-1?fieldValidation=Strict`, { body: JSON.stringify(current) });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.headers.warning, undefined);
    }
    const asCore = await json(api.request('GET', `${CORE}/put-1`), 200);
    assert.equal(asCore.eventTime, null);
    assert.equal(asCore.reportingComponent, '');
    await json(api.request('DELETE', `${EVENTS}/put-1`), 200);
    await json(api.request('GET', `${CORE}/put-1`), 404);
    const missing = await json(api.request('GET', `${EVENTS}/put-1`), 404);
    assert.equal(missing.message, 'events.events.k8s.io "put-1" not found');
  });

  it('selects by each version’s own field labels, and refuses the other version’s', async () => {
    const byRegarding = await json(api.request('GET', `${EVENTS}?fieldSelector=${encodeURIComponent('regarding.kind=Deployment')}`), 200);
    assert.deepEqual((byRegarding.items as Json[]).map((i) => (i.metadata as Json).name), ['new-1']);
    const byController = await json(api.request('GET', `${EVENTS}?fieldSelector=${encodeURIComponent('reportingController=example.com/deployer')}`), 200);
    assert.deepEqual((byController.items as Json[]).map((i) => (i.metadata as Json).name), ['new-1']);
    const bySource = await json(api.request('GET', `${EVENTS}?fieldSelector=${encodeURIComponent('source=kubelet,regarding.name=web-1')}`), 200);
    assert.deepEqual((bySource.items as Json[]).map((i) => (i.metadata as Json).name), ['legacy-ok', 'old-1']);
    const byInvolved = await json(api.request('GET', `${CORE}?fieldSelector=${encodeURIComponent('involvedObject.kind=Deployment,reportingComponent=example.com/deployer')}`), 200);
    assert.deepEqual((byInvolved.items as Json[]).map((i) => (i.metadata as Json).name), ['new-1']);
    const wrongLabel = await json(api.request('GET', `${EVENTS}?fieldSelector=involvedObject.kind%3DPod`), 400);
    assert.equal(wrongLabel.message, 'field label not supported: involvedObject.kind');
    const wrongCore = await json(api.request('GET', `${CORE}?fieldSelector=regarding.kind%3DPod`), 400);
    assert.equal(wrongCore.message, 'field label not supported: regarding.kind');
  });

  it('watches in both versions at once, each watcher in its own version', async () => {
    const list = await json(api.request('GET', CORE), 200);
    const rv = (list.metadata as Json).resourceVersion as string;
    const coreWatch = await api.watch(`${CORE}?watch=true&resourceVersion=${rv}`);
    const eventsWatch = await api.watch(`${EVENTS}?watch=true&resourceVersion=${rv}&fieldSelector=regarding.name%3Dweb-9`);
    assert.equal(coreWatch.status, 200);
    assert.equal(eventsWatch.status, 200);
    await json(api.request('POST', CORE, { body: JSON.stringify(coreEvent('watched', 'web-9')) }), 201);
    const mergePatch = { 'content-type': 'application/merge-patch+json' };
    // core/v1 may change the count (legacy rules); events.k8s.io/v1 may not, but may label it.
    await json(api.request('PATCH', `${CORE}/watched`, { body: JSON.stringify({ count: 5 }), headers: mergePatch }), 200);
    const refused = await json(api.request('PATCH', `${EVENTS}/watched`, { body: JSON.stringify({ deprecatedCount: 6 }), headers: mergePatch }), 422);
    assert.equal(refused.message, 'Event.events.k8s.io "watched" is invalid: count: Invalid value: 6: field is immutable');
    await json(api.request('PATCH', `${EVENTS}/watched`, { body: JSON.stringify({ metadata: { labels: { seen: 'yes' } } }), headers: mergePatch }), 200);
    await json(api.request('DELETE', `${EVENTS}/watched`), 200);
    const seenCore = await watchLines(coreWatch, 4);
    const seenEvents = await watchLines(eventsWatch, 4);
    assert.deepEqual(seenCore.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    assert.deepEqual(seenEvents.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    for (const e of seenCore) {
      assert.equal(e.object.apiVersion, 'v1');
      assert.equal(e.object.message, 'Container image "nginx" already present on machine');
    }
    for (const e of seenEvents) {
      assert.equal(e.object.apiVersion, 'events.k8s.io/v1');
      assert.equal(e.object.note, 'Container image "nginx" already present on machine');
    }
    assert.equal(seenCore[1]!.object.count, 5);
    assert.equal(seenEvents[1]!.object.deprecatedCount, 5);
    assert.deepEqual((seenEvents[2]!.object.metadata as Json).labels, { seen: 'yes' });
  });

  it('deletes a collection through events.k8s.io/v1, answering in that version', async () => {
    await json(api.request('POST', CORE, { body: JSON.stringify(coreEvent('gone-1', 'web-7')) }), 201);
    await json(api.request('POST', CORE, { body: JSON.stringify(coreEvent('gone-2', 'web-7')) }), 201);
    const deleted = await json(api.request('DELETE', `${EVENTS}?fieldSelector=regarding.name%3Dweb-7`), 200);
    assert.equal(deleted.apiVersion, 'events.k8s.io/v1');
    assert.equal(deleted.kind, 'EventList');
    assert.deepEqual((deleted.items as Json[]).map((i) => [(i.metadata as Json).name, i.apiVersion, i.note]), [
      ['gone-1', 'events.k8s.io/v1', 'Container image "nginx" already present on machine'],
      ['gone-2', 'events.k8s.io/v1', 'Container image "nginx" already present on machine'],
    ]);
    const left = await json(api.request('GET', `${CORE}?fieldSelector=involvedObject.name%3Dweb-7`), 200);
    assert.deepEqual(left.items, []);
  });

  it('serves events.k8s.io/v1 in discovery, stored as core/v1 Events', async () => {
    const groups = await json(api.request('GET', '/apis'), 200);
    const group = (groups.groups as Json[]).find((g) => g.name === 'events.k8s.io');
    assert.deepEqual(group, { name: 'events.k8s.io', versions: [{ groupVersion: 'events.k8s.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'events.k8s.io/v1', version: 'v1' } });
    const resources = await json(api.request('GET', '/apis/events.k8s.io/v1'), 200);
    assert.deepEqual(resources.resources, [
      {
        name: 'events',
        singularName: 'event',
        namespaced: true,
        kind: 'Event',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ev'],
        storageVersionHash: 'r2yiGXH7wu8=',
      },
    ]);
    const aggregated = await json(api.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } }), 200);
    const entry = (aggregated.items as Json[]).find((i) => (i.metadata as Json).name === 'events.k8s.io');
    assert.ok(entry !== undefined, 'events.k8s.io in aggregated discovery');
    assert.equal(((entry.versions as Json[])[0]!.resources as Json[])[0]!.resource, 'events');
  });

  it('prints the same table in both versions', async () => {
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const core = await json(api.request('GET', `${CORE}/new-1`, { headers: accept }), 200);
    const events = await json(api.request('GET', `${EVENTS}/new-1`, { headers: accept }), 200);
    assert.deepEqual(events.columnDefinitions, core.columnDefinitions);
    const cells = (t: Json): unknown[] => ((t.rows as Json[])[0]!.cells as unknown[]).slice(1);
    assert.deepEqual(cells(events), cells(core));
    assert.deepEqual(cells(events).slice(0, 5), ['Normal', 'ScalingUp', 'deployment/web', '', 'example.com/deployer, deployer-1']);
  });

  for (const version of ['1.33', '1.27'] as KubectlVersion[]) {
    it(`kubectl ${version}: get events, get events.v1.events.k8s.io and events`, async () => {
      const kubectl = newKubectl(version, cluster.kubeconfig);
      const header = /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/;
      for (const resource of ['events', 'events.v1.events.k8s.io']) {
        const lines = (await kubectl.ok('get', resource)).trimEnd().split('\n');
        assert.match(lines[0]!, header, resource);
        assert.ok(lines.some((l) => /\sNormal\s+ScalingUp\s+deployment\/web\s+Scaled up to 3 replicas$/.test(l)), `${resource}:\n${lines.join('\n')}`);
        assert.ok(lines.some((l) => /\sNormal\s+Pulled\s+pod\/web-1\s+Container image "nginx" already present on machine$/.test(l)), `${resource}:\n${lines.join('\n')}`);
      }
      const asNew = JSON.parse(await kubectl.ok('get', 'events.v1.events.k8s.io', 'old-1', '-o', 'json')) as Json;
      assert.equal(asNew.apiVersion, 'events.k8s.io/v1');
      assert.equal(asNew.note, 'Container image "nginx" already present on machine');
      const asOld = JSON.parse(await kubectl.ok('get', 'events', 'new-1', '-o', 'json')) as Json;
      assert.equal(asOld.apiVersion, 'v1');
      assert.equal(asOld.message, 'Scaled up to 3 replicas');
      const events = (await kubectl.ok('events')).trimEnd().split('\n');
      assert.match(events[0]!, header);
      assert.ok(events.some((l) => /\sNormal\s+ScalingUp\s+Deployment\/web\s+Scaled up to 3 replicas$/.test(l)), events.join('\n'));
      assert.ok(events.some((l) => /\sNormal\s+Pulled\s+Pod\/web-1\s+Container image "nginx" already present on machine$/.test(l)), events.join('\n'));
      const resources = (await kubectl.ok('api-resources')).split('\n');
      assert.ok(resources.some((l) => /^events +ev +v1 +true +Event$/.test(l)), resources.join('\n'));
      assert.ok(resources.some((l) => /^events +ev +events\.k8s\.io\/v1 +true +Event$/.test(l)), resources.join('\n'));
      const forPod = (await kubectl.ok('events', '--for', 'pod/web-1')).trimEnd().split('\n');
      assert.deepEqual(forPod.slice(1).map((l) => /\s(\S+)\s+Pod\/web-1\s/.exec(l)?.[1]), ['Pulled', 'Pulled']);
    });
  }
});
