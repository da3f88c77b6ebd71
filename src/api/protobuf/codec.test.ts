import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_RESOURCES } from '../resources.js';
import { ProtobufCodec, ProtobufError } from './codec.js';
import { decodeObject, encodeObject, messageForKind } from './envelope.js';
import { sampleObjects } from './testing/sample-objects.js';

const codec = new ProtobufCodec();
const roundTrip = (object: unknown): Record<string, unknown> => decodeObject(encodeObject(object));

/** Every leaf of `part` is in `whole` with the same value: nothing written was lost or changed. */
function assertContained(part: unknown, whole: unknown, path: string): void {
  if (Array.isArray(part)) {
    assert.ok(Array.isArray(whole), `${path}: expected an array, got ${JSON.stringify(whole)}`);
    assert.equal(whole.length, part.length, `${path}: length`);
    part.forEach((p, i) => assertContained(p, whole[i], `${path}[${i}]`));
  } else if (typeof part === 'object' && part !== null) {
    assert.ok(typeof whole === 'object' && whole !== null && !Array.isArray(whole), `${path}: expected an object, got ${JSON.stringify(whole)}`);
    for (const [k, v] of Object.entries(part)) assertContained(v, (whole as Record<string, unknown>)[k], `${path}.${k}`);
  } else {
    assert.deepEqual(whole, part, path);
  }
}

describe('protobuf codec', () => {
  it('has a message for every served kind and its list (kinds added later need no regeneration)', () => {
    for (const r of BUILTIN_RESOURCES) {
      const apiVersion = r.group === '' ? r.version : `${r.group}/${r.version}`;
      assert.ok(messageForKind(apiVersion, r.kind) !== undefined, `${apiVersion} ${r.kind}`);
      if (r.verbs.includes('list')) assert.ok(messageForKind(apiVersion, r.listKind) !== undefined, `${apiVersion} ${r.listKind}`);
    }
    assert.equal(messageForKind('events.k8s.io/v1', 'Event'), 'k8s.io.api.events.v1.Event');
    assert.equal(messageForKind('v1', 'Status'), 'k8s.io.apimachinery.pkg.apis.meta.v1.Status');
    assert.equal(messageForKind('apps/v1', 'WatchEvent'), 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
    assert.equal(messageForKind('meta.k8s.io/v1', 'PartialObjectMetadataList'), 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList');
    assert.equal(messageForKind('meta.k8s.io/v1', 'Table'), undefined, 'Table has no protobuf message upstream');
    assert.equal(messageForKind('example.com/v1', 'Widget'), undefined);
  });

  for (const [key, object] of Object.entries(sampleObjects())) {
    it(`round-trips ${key}: nothing lost, and a second trip changes nothing`, () => {
      const once = roundTrip(object);
      assertContained(object, once, key);
      assert.deepEqual(roundTrip(once), once);
    });
  }

  it('round-trips lists of every sample kind', () => {
    for (const object of Object.values(sampleObjects())) {
      const kind = String(object.kind);
      if (kind === 'Status' || kind === 'Binding' || kind === 'Scale' || kind === 'Eviction') continue;
      const list = { apiVersion: object.apiVersion, kind: `${kind}List`, metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 0 }, items: [object, object] };
      const decoded = roundTrip(list);
      // As upstream, items carry no apiVersion and kind of their own in protobuf.
      const { apiVersion: _v, kind: _k, ...item } = object;
      assertContained({ ...list, items: [item, item] }, decoded, `${kind}List`);
      assert.equal('kind' in (decoded.items as object[])[0]!, false);
    }
  });

  it('writes what upstream writes after a protobuf round trip (Go JSON of the struct)', () => {
    const pod = roundTrip({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } }) as Record<string, Record<string, unknown>>;
    // An empty slice without omitempty comes back as null; a struct without a pointer comes back empty.
    assert.deepEqual(pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: null }, status: {} });
    const container = (roundTrip({ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { containers: [{ name: 'c' }] } }).spec as { containers: unknown[] }).containers[0];
    assert.deepEqual(container, { name: 'c', resources: {} });
    // A non-pointer field without omitempty comes back as its zero value.
    assert.deepEqual(roundTrip({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'x' } }), { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'x' }, value: 0 });
    // IntOrString zero value, and a zero value of an omitempty non-pointer field dropped.
    const svc = roundTrip({ apiVersion: 'v1', kind: 'Service', metadata: {}, spec: { ports: [{ port: 80, nodePort: 0 }] } }) as { spec: { ports: unknown[] } };
    assert.deepEqual(svc.spec.ports, [{ port: 80, targetPort: 0 }]);
  });

  it('keeps proto2 presence: pointers set to 0, false or "" survive', () => {
    const d = roundTrip({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { replicas: 0, paused: false, template: { spec: { automountServiceAccountToken: false, containers: null } } } }) as {
      spec: { replicas?: number; paused?: boolean; template: { spec: { automountServiceAccountToken?: boolean } } };
    };
    assert.equal(d.spec.replicas, 0, 'replicas is a pointer');
    assert.equal('paused' in d.spec, false, 'paused is an omitempty bool');
    assert.equal(d.spec.template.spec.automountServiceAccountToken, false);
    const cm = roundTrip({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, immutable: false, data: { empty: '' } });
    assert.equal(cm.immutable, false);
    assert.deepEqual(cm.data, { empty: '' });
  });

  it('carries times, micro times, int-or-strings, quantities, bytes and raw JSON', () => {
    const ev = roundTrip({ apiVersion: 'v1', kind: 'Event', metadata: { creationTimestamp: '2024-05-06T09:08:09+02:00' }, eventTime: '2024-05-06T07:08:09.1234567Z', involvedObject: {}, firstTimestamp: '2024-05-06T07:08:09.9Z' });
    assert.equal((ev.metadata as { creationTimestamp: string }).creationTimestamp, '2024-05-06T07:08:09Z', 'in UTC');
    assert.equal(ev.eventTime, '2024-05-06T07:08:09.123456Z', 'microseconds');
    assert.equal(ev.firstTimestamp, '2024-05-06T07:08:09Z', 'a Time travels in whole seconds');
    assert.equal(ev.lastTimestamp, null, 'a zero Time is null');
    const secret = roundTrip({ apiVersion: 'v1', kind: 'Secret', metadata: {}, data: { bin: Buffer.from([0, 255, 128]).toString('base64') } });
    assert.deepEqual(secret.data, { bin: 'AP+A' });
    const rev = roundTrip({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: {}, data: { a: [1, 'x', null] }, revision: 1 });
    assert.deepEqual(rev.data, { a: [1, 'x', null] });
  });

  it('reads named-slice wrappers (ExtraValue) as bare arrays', () => {
    const type = 'k8s.io.api.authentication.v1.UserInfo';
    const user = { username: 'alice', groups: ['dev'], extra: { scopes: ['a', 'b'], empty: [] } };
    assert.deepEqual(codec.decode(type, codec.encode(type, user)), { username: 'alice', groups: ['dev'], extra: { scopes: ['a', 'b'], empty: [] } });
  });

  it('reads packed repeated scalars and skips unknown fields', () => {
    // PodFailurePolicyOnExitCodesRequirement.values (field 3, int32) packed, and an unknown field 15.
    const type = 'k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement';
    const bytes = Buffer.from([0x12, 0x02, 0x49, 0x6e, 0x1a, 0x02, 0x01, 0x2a, 0x7a, 0x01, 0x78]);
    assert.deepEqual(codec.decode(type, bytes), { operator: 'In', values: [1, 42] });
  });

  it('rejects values that do not fit the schema and bytes that are not a message', () => {
    assert.throws(() => encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 5 } }), (e: unknown) => e instanceof ProtobufError && /metadata.name: expected a string/.test(e.message));
    assert.throws(() => encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { containers: {} } }), /spec.containers: expected an array/);
    assert.throws(() => encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { creationTimestamp: 'now' } }), /expected an RFC 3339 time/);
    assert.throws(() => encodeObject({ apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: {} }), /has no protobuf encoding/);
    assert.throws(() => encodeObject({ metadata: {} }), /no apiVersion and kind/);
    const cm = 'k8s.io.api.core.v1.ConfigMap';
    assert.throws(() => codec.decode(cm, Buffer.from([0x0a, 0x05, 0x0a])), /unexpected EOF/);
    assert.throws(() => codec.decode(cm, Buffer.from([0x00])), /illegal tag 0/);
    assert.throws(() => codec.decode(cm, Buffer.from([0x08, 0x01])), /wrong wireType = 0 for field metadata/);
  });
});
