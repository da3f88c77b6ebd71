import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeObject, encodeObject, splitApiVersion } from './envelope.js';
import { goJsonShape, GoJsonShaper } from './go-json-shape.js';
import { sampleObjects } from './testing/sample-objects.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };

type Obj = Record<string, unknown>;

/** The shaped pod's first container. */
function container(c: Obj, extraSpec: Obj = {}): Obj {
  const shaped = goJsonShape({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [c], ...extraSpec } }, POD);
  return ((shaped.spec as Obj).containers as Obj[])[0]!;
}

describe('the Go JSON shape of an object', () => {
  it('drops empty omitempty fields: "", 0, false, empty slices, empty maps, nil pointers', () => {
    const shaped = goJsonShape(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: '', generation: 0, labels: {}, annotations: {}, finalizers: [], deletionTimestamp: null },
        spec: {
          containers: [{ name: 'c', image: '', env: [], ports: [], tty: false, stdin: false, livenessProbe: null, resources: { limits: {}, requests: {} } }],
          nodeSelector: {},
          hostNetwork: false,
          tolerations: [],
        },
      },
      POD,
    );
    assert.deepEqual(shaped, {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p', creationTimestamp: null },
      spec: { containers: [{ name: 'c', resources: {} }] },
      status: {},
    });
  });

  it('writes non-omitempty zero values as Go does: 0, "", null for a nil slice, a struct as its object', () => {
    // ContainerPort.containerPort and EnvVar.name are not omitempty; PodSpec.containers is a slice without omitempty.
    const c = container({ ports: [{ name: 'http' }], env: [{ value: 'x' }] });
    assert.deepEqual(c, { name: '', ports: [{ name: 'http', containerPort: 0 }], env: [{ name: '', value: 'x' }], resources: {} });
    const pod = goJsonShape({ apiVersion: 'v1', kind: 'Pod', spec: {} }, POD);
    assert.deepEqual(pod, { kind: 'Pod', apiVersion: 'v1', metadata: { creationTimestamp: null }, spec: { containers: null }, status: {} });
    // Go's zero fields come after the given ones, in struct order.
    assert.equal(JSON.stringify(goJsonShape({ spec: { containers: [{ image: 'i' }] } }, POD)), '{"spec":{"containers":[{"image":"i","name":"","resources":{}}]},"metadata":{"creationTimestamp":null},"status":{}}');
  });

  it('keeps an empty slice or map of a field without omitempty, and a pointer to a zero value', () => {
    const pod = goJsonShape({ spec: { containers: [], automountServiceAccountToken: false, priority: 0, restartPolicy: '' } }, POD);
    assert.deepEqual(pod.spec, { containers: [], automountServiceAccountToken: false, priority: 0 });
    // A nil pointer without omitempty is null: events.k8s.io/v1 Event.eventTime is a value MicroTime, written null when zero.
    const event = goJsonShape({ metadata: { name: 'e' }, regarding: {} }, { group: 'events.k8s.io', version: 'v1', kind: 'Event' });
    assert.equal(event.eventTime, null);
    assert.deepEqual(event.regarding, {});
    assert.deepEqual(event.deprecatedSource, {});
    assert.equal(event.deprecatedFirstTimestamp, null);
  });

  it('decodes a JSON null as the zero value: in a value field, a slice item and a map value', () => {
    const c = container({ name: null, args: ['a', null], ports: [null] });
    assert.deepEqual(c, { name: '', args: ['a', ''], ports: [{ containerPort: 0 }], resources: {} });
    const secret = goJsonShape({ data: { a: null, b: 'Yg==' }, stringData: { c: null } }, { group: '', version: 'v1', kind: 'Secret' });
    assert.deepEqual(secret, { metadata: { creationTimestamp: null }, data: { a: null, b: 'Yg==' }, stringData: { c: '' } });
  });

  it('writes metav1.Time in whole seconds UTC, a zero Time as null, a zero creationTimestamp too unless omitzero is honoured', () => {
    const shaped = goJsonShape(
      {
        metadata: { name: 'p', creationTimestamp: null, deletionTimestamp: '2024-05-06T09:08:09.123+02:00' },
        status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-06T07:08:09Z' }], startTime: '2024-05-06t07:08:09.999z' },
      },
      POD,
    );
    assert.deepEqual(shaped.metadata, { name: 'p', creationTimestamp: null, deletionTimestamp: '2024-05-06T07:08:09Z' });
    const newer = new GoJsonShaper(undefined, { honourOmitzero: true });
    assert.deepEqual(newer.shape({ metadata: { name: 'p', creationTimestamp: null } }, POD).metadata, { name: 'p' });
    const status = shaped.status as Obj;
    assert.deepEqual(status.conditions, [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-06T07:08:09Z' }]);
    assert.equal(status.startTime, '2024-05-06T07:08:09Z');
    assert.deepEqual(goJsonShape({ metadata: { creationTimestamp: '2024-05-06T07:08:09Z' } }, POD).metadata, { creationTimestamp: '2024-05-06T07:08:09Z' });
    // Text that is not a time is kept for validation to report.
    assert.equal((goJsonShape({ metadata: { deletionTimestamp: 'yesterday' } }, POD).metadata as Obj).deletionTimestamp, 'yesterday');
  });

  it('writes MicroTime with microseconds in UTC', () => {
    const lease = goJsonShape({ spec: { renewTime: '2024-05-06T07:08:09.5Z', acquireTime: '2024-05-06T09:08:09.123456789+02:00' } }, { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' });
    assert.deepEqual(lease.spec, { acquireTime: '2024-05-06T07:08:09.123456Z', renewTime: '2024-05-06T07:08:09.500000Z' });
  });

  it('writes a Duration as time.Duration.String does, a zero one as 0s', () => {
    // No served kind of ours writes a Duration: a made-up message has two.
    const fake = new GoJsonShaper(fakeSchema({ 'x.v1.Thing': [['timeout', 1, 'k8s.io.apimachinery.pkg.apis.meta.v1.Duration', ''], ['ttl', 2, 'k8s.io.apimachinery.pkg.apis.meta.v1.Duration', 'po']] }));
    assert.deepEqual(fake.shape({ timeout: '90s', ttl: '1.5h' }, THING), { timeout: '1m30s', ttl: '1h30m0s' });
    assert.deepEqual(fake.shape({}, THING), { timeout: '0s' });
    assert.deepEqual(fake.shape({ timeout: 'soon' }, THING), { timeout: 'soon' });
  });

  it('writes IntOrString as given and a zero one as 0', () => {
    const service = goJsonShape({ spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }, { port: 82 }] } }, { group: '', version: 'v1', kind: 'Service' });
    assert.deepEqual((service.spec as Obj).ports, [
      { port: 80, targetPort: 'http' },
      { port: 81, targetPort: 8081 },
      { port: 82, targetPort: 0 },
    ]);
  });

  it('writes a Quantity in canonical form, from a string or a number', () => {
    const c = container({ name: 'c', resources: { requests: { cpu: 0.5, memory: '1.5Gi' }, limits: { cpu: '1000m', memory: '64Mi', 'example.com/gpu': 2 } } });
    assert.deepEqual(c.resources, { limits: { cpu: '1', memory: '64Mi', 'example.com/gpu': '2' }, requests: { cpu: '500m', memory: '1536Mi' } });
    const volume = goJsonShape({ spec: { volumes: [{ name: 'v', emptyDir: {} }] } }, POD);
    assert.deepEqual(((volume.spec as Obj).volumes as Obj[])[0], { name: 'v', emptyDir: {} });
  });

  it('keeps RawExtension and FieldsV1 untouched, null when absent and not omitempty', () => {
    const revision = { group: 'apps', version: 'v1', kind: 'ControllerRevision' };
    const data = { spec: { template: { b: 1, a: [] } }, unknown: null };
    assert.deepEqual(goJsonShape({ data, revision: 2 }, revision), { metadata: { creationTimestamp: null }, data, revision: 2 });
    assert.deepEqual(goJsonShape({}, revision), { metadata: { creationTimestamp: null }, data: null, revision: 0 });
    const fieldsV1 = { 'f:metadata': { 'f:labels': {} } };
    const shaped = goJsonShape({ metadata: { managedFields: [{ manager: 'm', fieldsV1 }] } }, POD);
    assert.deepEqual((shaped.metadata as Obj).managedFields, [{ manager: 'm', fieldsV1 }]);
  });

  it('keeps bytes as base64, without the line breaks Go would not write', () => {
    const kind = { group: '', version: 'v1', kind: 'ConfigMap' };
    assert.deepEqual(goJsonShape({ binaryData: { a: 'aGVs\nbG8=' }, data: {} }, kind), { metadata: { creationTimestamp: null }, binaryData: { a: 'aGVsbG8=' } });
    const fake = new GoJsonShaper(fakeSchema({ 'x.v1.Thing': [['raw', 1, 'bytes', ''], ['opt', 2, 'bytes', 'o']] }));
    assert.deepEqual(fake.shape({}, THING), { raw: null });
    assert.deepEqual(fake.shape({ raw: '', opt: '' }, THING), { raw: '' });
    assert.deepEqual(fake.shape({ raw: 'AA==', opt: 'AQ==' }, THING), { raw: 'AA==', opt: 'AQ==' });
  });

  it('writes inline structs into their parent', () => {
    const pod = goJsonShape(
      { spec: { volumes: [{ configMap: { optional: true, items: [], name: 'cm' }, name: 'v' }], containers: [{ name: 'c', envFrom: [{ secretRef: { name: 's' } }] }] } },
      POD,
    );
    const spec = pod.spec as Obj;
    assert.equal(JSON.stringify((spec.volumes as Obj[])[0]), '{"configMap":{"optional":true,"name":"cm"},"name":"v"}');
    assert.deepEqual((spec.containers as Obj[])[0]!.envFrom, [{ secretRef: { name: 's' } }]);
    const probe = container({ name: 'c', livenessProbe: { periodSeconds: 3, httpGet: { port: 8080 } } }).livenessProbe;
    assert.equal(JSON.stringify(probe), '{"periodSeconds":3,"httpGet":{"port":8080}}');
    // An inline struct's fields Go always writes: ObjectReference-like LocalObjectReference.name is omitempty, so none here.
    assert.deepEqual(container({ name: 'c', env: [{ name: 'E', valueFrom: { configMapKeyRef: { key: 'k' } } }] }).env, [{ name: 'E', valueFrom: { configMapKeyRef: { key: 'k' } } }]);
  });

  it('writes a named slice (ExtraValue) as a bare array, dropped when empty and omitempty', () => {
    const kind = { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' };
    const shaped = goJsonShape({ spec: { user: 'u', extra: { a: ['x', null], b: [] }, groups: [] } }, kind);
    assert.deepEqual(shaped.spec, { user: 'u', extra: { a: ['x', ''], b: [] } });
  });

  it('keeps the order of the keys it was given (a no-op write stays byte for byte the same), appends the zero fields Go writes in struct order, keeps unknown keys untouched', () => {
    const shaped = goJsonShape(
      { status: { phase: 'Running' }, extra: { '': [] }, spec: { containers: [{ image: 'i', zz: [], name: 'c' }] }, metadata: { labels: { b: '1', a: '2' }, name: 'p' }, apiVersion: 'v1', kind: 'Pod' },
      POD,
    );
    assert.equal(
      JSON.stringify(shaped),
      '{"status":{"phase":"Running"},"extra":{"":[]},"spec":{"containers":[{"image":"i","zz":[],"name":"c","resources":{}}]},"metadata":{"labels":{"b":"1","a":"2"},"name":"p","creationTimestamp":null},"apiVersion":"v1","kind":"Pod"}',
    );
  });

  it('keeps a value of the wrong JSON type as it is (validation reports it)', () => {
    const shaped = goJsonShape({ metadata: 'nope', spec: { containers: { a: 1 }, nodeSelector: ['x'] } }, POD);
    assert.equal(shaped.metadata, 'nope');
    assert.deepEqual(shaped.spec, { containers: { a: 1 }, nodeSelector: ['x'] });
  });

  it('keeps a __proto__ key as an own property', () => {
    const labels = JSON.parse('{"__proto__":"x"}') as Obj;
    const shaped = goJsonShape({ metadata: { labels } }, POD);
    const out = (shaped.metadata as Obj).labels as Obj;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['__proto__']);
  });

  it('returns a kind without a message (a custom resource) unchanged, and never changes its input', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', spec: { list: [] } };
    assert.equal(goJsonShape(widget, { group: 'example.com', version: 'v1', kind: 'Widget' }), widget);
    // A meta/v1 kind is not what a write of a group's kind decodes into.
    assert.equal(new GoJsonShaper().knows({ group: 'apps', version: 'v1', kind: 'Status' }), false);
    const input = { metadata: { labels: {} }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', env: [] }] } } } };
    const copy = structuredClone(input);
    const shaped = goJsonShape(input, DEPLOYMENT);
    assert.deepEqual(input, copy);
    assert.deepEqual(shaped, {
      metadata: { creationTimestamp: null },
      spec: { replicas: 1, selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name: 'c', resources: {} }] } }, strategy: {} },
      status: {},
    });
  });

  it('is what the protobuf decoder answers for every sample kind (omitzero honoured, as it does), and a second pass changes nothing', () => {
    const shaper = new GoJsonShaper(undefined, { honourOmitzero: true });
    for (const [key, object] of Object.entries(sampleObjects())) {
      const { group, version } = splitApiVersion(String(object.apiVersion));
      const kind = { group, version, kind: String(object.kind) };
      const shaped = shaper.shape(object, kind);
      assert.deepEqual(shaped, decodeObject(encodeObject(object)), key);
      assert.equal(JSON.stringify(shaper.shape(shaped, kind)), JSON.stringify(shaped), key);
      assert.equal(JSON.stringify(goJsonShape(goJsonShape(object, kind), kind)), JSON.stringify(goJsonShape(object, kind)), key);
    }
  });
});

const THING = { group: 'x.example', version: 'v1', kind: 'Thing' };

/** A schema of a few made-up messages in the group x.example/v1 (package `x.v1`). */
function fakeSchema(messages: Record<string, [string, number, string, string][]>): ConstructorParameters<typeof GoJsonShaper>[0] {
  return {
    message(name) {
      const raw = messages[name];
      if (raw === undefined) return undefined;
      const fields = raw.map(([json, number, type, flags], index) => ({
        json,
        number,
        index,
        scalar: !type.includes('.'),
        type,
        mapKey: undefined,
        repeated: flags.includes('r'),
        pointer: flags.includes('p'),
        omitempty: flags.includes('o'),
        omitzero: flags.includes('z'),
        inline: flags.includes('i'),
      }));
      return { name, fields, encodeOrder: fields, byNumber: new Map(fields.map((f) => [f.number, f])), list: false };
    },
    packagesFor(group, version) {
      return group === 'x.example' && version === 'v1' ? ['x.v1'] : [];
    },
  };
}
