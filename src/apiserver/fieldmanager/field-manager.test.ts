import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplyConflicts } from './conflicts.js';
import { FieldSet, fieldElement, type JsonValue } from './field-set.js';
import { ApplyInputError, capUpdateManagers, FieldManager, LAST_APPLIED } from './field-manager.js';
import { decodeManagedFields, identity, identityKey, type ManagedFieldsEntry, type Managed } from './managed-fields.js';
import { builtinTypeSchema } from './schema.js';
import { TypedError } from './typed.js';

type Obj = { [key: string]: JsonValue };

const schema = builtinTypeSchema();
let clock = Date.parse('2026-01-01T00:00:00Z');
const now = (): Date => new Date(clock);

function manager(group: string, version: string, kind: string, subresource = '', reset = new FieldSet()): FieldManager {
  return new FieldManager({
    schema,
    type: schema.typeOfKind(group, version, kind),
    apiVersion: group === '' ? version : `${group}/${version}`,
    kind,
    subresource,
    resetFields: reset,
    now,
  });
}

const configMaps = manager('', 'v1', 'ConfigMap');
const cm = (data: Record<string, string>, extra: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', ...extra }, data });
const entries = (o: Obj): ManagedFieldsEntry[] => ((o.metadata as Obj).managedFields ?? []) as unknown as ManagedFieldsEntry[];
const stored = (o: Obj): Obj => {
  const copy = structuredClone(o);
  (copy.metadata as Obj).uid = 'uid-1';
  return copy;
};

describe('FieldManager.update', () => {
  it('records what a create sets, under the request manager', () => {
    const o = configMaps.update(undefined, cm({ a: '1' }, { labels: { l: 'x' } }), 'kubectl-create');
    assert.deepEqual(entries(o), [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } },
      },
    ]);
  });

  it('takes changed fields from their previous owner and merges entries of one manager', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1', b: '2' }), 'creator'));
    clock += 60_000;
    const updated = configMaps.update(created, { ...cm({ a: '9', b: '2', c: '3' }), metadata: { ...(created.metadata as Obj) } }, 'editor');
    const byManager = Object.fromEntries(entries(updated).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(byManager, { creator: { 'f:data': { '.': {}, 'f:b': {} } }, editor: { 'f:data': { 'f:a': {}, 'f:c': {} } } });
    // Sorted as upstream sorts: by operation, then time.
    assert.deepEqual(entries(updated).map((e) => e.manager), ['creator', 'editor']);
  });

  it('changes nothing for a write that changes nothing', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'creator'));
    clock += 60_000;
    const same = configMaps.update(created, structuredClone(created), 'other');
    assert.deepEqual(entries(same), entries(created));
  });

  it('keeps the live entries when the request leaves managedFields out or sends invalid ones', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'creator'));
    const without = cm({ a: '1', b: '2' }, { uid: 'uid-1' });
    assert.deepEqual(entries(configMaps.update(created, without, 'm')).map((e) => e.manager), ['creator', 'm']);
    const invalid = cm({ a: '1', b: '2' }, { uid: 'uid-1', managedFields: [{ manager: 'x', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1' }] });
    assert.deepEqual(entries(configMaps.update(created, invalid, 'm')).map((e) => e.manager), ['creator', 'm']);
  });

  it('clears managedFields when the request sends [] or [{}]', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'creator'));
    for (const reset of [[], [{}]]) {
      const o = configMaps.update(created, cm({ a: '2' }, { uid: 'uid-1', managedFields: reset }), 'm');
      assert.equal((o.metadata as Obj).managedFields, undefined);
    }
  });

  it('uses the managedFields a client sends', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'creator'));
    const sent = [{ manager: 'someone', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const o = configMaps.update(created, cm({ a: '1' }, { uid: 'uid-1', managedFields: sent }), 'm');
    assert.deepEqual(entries(o).map((e) => e.manager), ['someone']);
  });

  it('records a subresource write under the subresource, ignoring entries the request sends', () => {
    const status = manager('apps', 'v1', 'Deployment', 'status', FieldSet.of([fieldElement('spec')]));
    const live = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', uid: 'u', managedFields: [] }, spec: { replicas: 1 } } as Obj;
    const first = stored(manager('apps', 'v1', 'Deployment').update(undefined, { ...live, metadata: { name: 'd' } }, 'creator'));
    const next = { ...first, spec: { replicas: 5 }, status: { replicas: 1 }, metadata: { ...(first.metadata as Obj), managedFields: [] } } as Obj;
    const o = status.update(first, next, 'kube-controller-manager');
    const entry = entries(o).find((e) => e.manager === 'kube-controller-manager');
    assert.equal(entry?.subresource, 'status');
    // status is a value struct (never "added" itself); spec is reset through /status, never owned.
    assert.deepEqual(entry?.fieldsV1, { 'f:status': { 'f:replicas': {} } });
  });

  it('keeps the live entries when tracking fails (upstream\'s UpdateNoErrors)', () => {
    const pods = manager('', 'v1', 'Pod');
    const pod = (containers: JsonValue): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } });
    const created = stored(pods.update(undefined, pod([{ name: 'a', image: 'x' }]), 'creator'));
    // A container that is not an object cannot be tracked: the write keeps the entries it had.
    const o = pods.update(created, { ...pod(['y']), metadata: { name: 'p', uid: 'uid-1' } }, 'other');
    assert.deepEqual(entries(o), entries(created));
  });

  it('does not start tracking an existing object that has no managedFields', () => {
    const o = configMaps.update(cm({ a: '1' }, { uid: 'u' }), cm({ a: '2' }, { uid: 'u' }), 'm');
    assert.equal((o.metadata as Obj).managedFields, undefined);
  });

  it('keeps the object it is given as the result when the caller gives it, unless its metadata must change', () => {
    const given = cm({ a: '1' }, { labels: { l: 'x' } });
    const o = configMaps.update(undefined, given, 'kubectl-create', { nextIsOwn: true });
    assert.equal(o, given);
    assert.deepEqual(o, configMaps.update(undefined, cm({ a: '1' }, { labels: { l: 'x' } }), 'kubectl-create'));
    assert.deepEqual(Object.keys(o.metadata as Obj), ['name', 'namespace', 'labels', 'managedFields']);
    // With managedFields of its own, the metadata is built anew (without them), and the object's own stays as it was.
    const created = stored(configMaps.update(undefined, cm({ a: '1' }), 'creator'));
    const sent = [{ manager: 'someone', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const withEntries = cm({ a: '1' }, { uid: 'uid-1', managedFields: sent });
    const meta = withEntries.metadata as Obj;
    const updated = configMaps.update(created, withEntries, 'm', { nextIsOwn: true });
    assert.equal(meta.managedFields, sent);
    assert.notEqual(updated.metadata, meta);
    assert.deepEqual(updated, configMaps.update(created, cm({ a: '1' }, { uid: 'uid-1', managedFields: sent }), 'm'));
  });

  it('records each manager under its own name, however many there are', () => {
    const pods = manager('', 'v1', 'Pod');
    for (let i = 0; i < 1100; i++) {
      const name = `m${i % 1050}`;
      const o = pods.update(undefined, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } }, name);
      assert.deepEqual(entries(o).map((e) => [e.manager, e.operation, e.apiVersion, e.subresource]), [[name, 'Update', 'v1', undefined]]);
    }
    const scale = manager('apps', 'v1', 'Deployment', 'scale');
    const d = scale.update(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 2 } }, '');
    assert.deepEqual(entries(d).map((e) => [e.manager, e.apiVersion, e.subresource]), [['unknown', 'apps/v1', 'scale']]);
  });

  it('merges the oldest Update entries into ancient-changes beyond ten', () => {
    const managed: Managed = new Map();
    for (let i = 0; i < 12; i++) {
      const id = identity(`m${String(i).padStart(2, '0')}`, 'Update', 'v1', '');
      managed.set(identityKey(id), { identity: id, apiVersion: 'v1', set: FieldSet.of([fieldElement(`f${i}`)]), time: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() });
    }
    const capped = capUpdateManagers(managed);
    assert.equal(capped.size, 10);
    const ancient = [...capped.values()].find((e) => e.identity.manager === 'ancient-changes');
    assert.deepEqual(ancient?.set.list().map((p) => p.map((e) => ('field' in e ? e.field : '')).join('.')), ['f0', 'f1', 'f2']);
  });
});

describe('FieldManager.apply', () => {
  it('creates an object from the configuration', () => {
    const o = configMaps.apply(undefined, cm({ a: '1' }), 'kubectl', false);
    assert.deepEqual(o.data, { a: '1' });
    assert.deepEqual(entries(o), [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: now().toISOString().replace('.000', ''), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
  });

  it('removes what the applier no longer applies, unless another manager owns it', () => {
    let o = stored(configMaps.apply(undefined, cm({ a: '1', b: '2', c: '3' }), 'kubectl', false));
    o = stored(configMaps.update(o, { ...structuredClone(o), data: { a: '1', b: '2', c: '3', d: '4' } }, 'other'));
    // "other" now owns d only; it re-sets c to take it as well.
    o = stored(configMaps.update(o, { ...structuredClone(o), data: { a: '1', b: '2', c: '3x', d: '4' } }, 'other'));
    o = configMaps.apply(o, cm({ a: '1' }), 'kubectl', true);
    assert.deepEqual(o.data, { a: '1', c: '3x', d: '4' });
  });

  it('fails with conflicts on fields another manager owns with another value, and takes them when forced', () => {
    const created = stored(configMaps.update(undefined, cm({ a: '1', b: '2' }), 'kubectl-client-side-apply'));
    assert.throws(
      () => configMaps.apply(created, cm({ a: 'x', b: 'y' }), 'kubectl', false),
      (e: unknown) =>
        e instanceof ApplyConflicts &&
        e.message === 'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using v1:\n- .data.a\n- .data.b',
    );
    // The same value is no conflict.
    assert.deepEqual(configMaps.apply(created, cm({ a: '1' }), 'kubectl', false).data, { a: '1', b: '2' });
    const forced = configMaps.apply(created, cm({ a: 'x' }), 'kubectl', true);
    assert.deepEqual(forced.data, { a: 'x', b: '2' });
    const owners = Object.fromEntries(entries(forced).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners['kubectl-client-side-apply'], { 'f:data': { '.': {}, 'f:b': {} } });
  });

  it('gives the fields of an object created before tracking to before-first-apply', () => {
    const o = configMaps.apply(cm({ a: '1', b: '2' }, { uid: 'u' }), cm({ a: '1' }), 'kubectl', false);
    assert.deepEqual(entries(o).map((e) => e.manager), ['kubectl', 'before-first-apply']);
  });

  it('rejects a configuration of another kind, one with managedFields, and undeclared fields', () => {
    assert.throws(() => configMaps.apply(undefined, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' } }, 'kubectl', false), (e: unknown) => e instanceof ApplyInputError && e.message === 'invalid object type: /v1, Kind=Secret');
    assert.throws(() => configMaps.apply(undefined, { metadata: { name: 'c' } }, 'kubectl', false), /invalid object type: \/, Kind=/);
    assert.throws(() => configMaps.apply(undefined, cm({}, { managedFields: [] }), 'kubectl', false), /metadata.managedFields must be nil/);
    assert.throws(() => configMaps.apply(undefined, { ...cm({}), spec: {} }, 'kubectl', false), (e: unknown) => e instanceof TypedError && e.message === '.spec: field not declared in schema');
    const pods = manager('', 'v1', 'Pod');
    assert.throws(
      () => pods.apply(undefined, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }, { name: 'a' }, { image: 'x' }] } }, 'kubectl', false),
      (e: unknown) =>
        e instanceof TypedError &&
        e.message ===
          'errors:\n  .spec.containers: duplicate entries for key [name="a"]\n  .spec.containers: element 2: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });

  it('lets kubectl take over the fields client-side apply set, as its annotation still describes them', () => {
    const annotation = `${JSON.stringify(cm({ a: '1' }))}\n`;
    const live = stored(configMaps.update(undefined, cm({ a: '1', b: '2' }, { annotations: { [LAST_APPLIED]: annotation } }), 'kubectl-client-side-apply'));
    // .data.a is described by the annotation: no conflict for kubectl; .data.b is not.
    assert.deepEqual(configMaps.apply(live, cm({ a: '9' }), 'kubectl', false).data, { a: '9', b: '2' });
    assert.throws(() => configMaps.apply(live, cm({ a: '9', b: '8' }), 'kubectl', false), /Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: \.data\.b/);
    // Another manager gets every conflict.
    assert.throws(() => configMaps.apply(live, cm({ a: '9' }), 'other', false), /conflict with "kubectl-client-side-apply" using v1: \.data\.a/);
  });

  it('keeps a client-side apply annotation in step when kubectl applies', () => {
    const live = stored(configMaps.update(undefined, cm({ a: '1' }, { annotations: { [LAST_APPLIED]: '{"old":true}\n' } }), 'kubectl-client-side-apply'));
    const o = configMaps.apply(live, cm({ a: '2' }), 'kubectl', true);
    assert.equal(((o.metadata as Obj).annotations as Obj)[LAST_APPLIED], '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}\n');
  });

  it('fails an apply over managedFields it cannot read', () => {
    const live = cm({ a: '1' }, { uid: 'u', managedFields: [{ manager: 'x', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1' }] });
    assert.throws(() => configMaps.apply(live, cm({ a: '2' }), 'kubectl', false), /^Error: failed to decode managed fields: operation must be `Apply` or `Update`$/);
  });

  it('round-trips its entries through decodeManagedFields', () => {
    const o = configMaps.apply(undefined, cm({ a: '1' }), 'kubectl', false);
    const decoded = decodeManagedFields((o.metadata as Obj).managedFields);
    assert.equal(decoded.size, 1);
  });
});

describe('FieldManager over entries read back from the wire', () => {
  const pods = manager('', 'v1', 'Pod', '', FieldSet.of([fieldElement('status')]));
  const podStatus = manager('', 'v1', 'Pod', 'status', FieldSet.of([fieldElement('spec')]));
  const pod = (status: JsonValue): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'd', labels: { app: 'a' } },
    spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'A', value: '1' }] }] },
    status,
  });
  const withStatus = (live: Obj, status: JsonValue): Obj => ({ ...structuredClone(live), status });
  const byManager = (o: Obj): Record<string, ManagedFieldsEntry> => Object.fromEntries(entries(o).map((e) => [e.manager, e]));
  const conditions = (ready: string): JsonValue => [{ type: 'Ready', status: ready }];

  it('keeps the entries a status write does not touch as they were read, and re-times the writer\'s own', () => {
    const created = stored(pods.update(undefined, pod({}), 'creator'));
    clock += 60_000;
    const first = stored(podStatus.update(created, withStatus(created, { phase: 'Pending', conditions: conditions('False') }), 'kubelet'));
    clock += 60_000;
    const live = structuredClone(first);
    const second = podStatus.update(live, withStatus(live, { phase: 'Running', conditions: conditions('True') }), 'kubelet');
    const before = byManager(live);
    const after = byManager(second);
    // The creator's entry is the one read (its FieldsV1 not even copied); the kubelet's owns the same fields, now.
    assert.equal(after.creator!.fieldsV1, before.creator!.fieldsV1);
    assert.deepEqual(after.kubelet!.fieldsV1, before.kubelet!.fieldsV1);
    assert.equal(after.kubelet!.time, nowTimeOf(clock));
    assert.notEqual(after.kubelet!.time, before.kubelet!.time);
    // A status write that changes nothing leaves even the time.
    const same = podStatus.update(structuredClone(first), structuredClone(first), 'kubelet');
    assert.deepEqual(entries(same), entries(first));
  });

  it('drops removed fields from every entry and an entry left empty, over several writes', () => {
    let o = stored(configMaps.update(undefined, cm({ a: '1', b: '2', c: '3' }), 'creator'));
    o = stored(configMaps.update(o, { ...structuredClone(o), data: { a: '1', b: '2', c: '3', d: '4' } }, 'other'));
    o = stored(configMaps.update(o, { ...structuredClone(o), data: { a: '1', c: '3' } }, 'third'));
    assert.deepEqual(
      Object.fromEntries(entries(o).map((e) => [e.manager, e.fieldsV1])),
      { creator: { 'f:data': { '.': {}, 'f:a': {}, 'f:c': {} } } },
    );
  });

  it('moves a field between managers as each changes it, and back', () => {
    let o = stored(configMaps.update(undefined, cm({ a: '1', b: '2' }), 'one'));
    clock += 1000;
    o = stored(configMaps.update(o, { ...structuredClone(o), data: { a: 'x', b: '2' } }, 'two'));
    assert.deepEqual(Object.fromEntries(entries(o).map((e) => [e.manager, e.fieldsV1])), {
      one: { 'f:data': { '.': {}, 'f:b': {} } },
      two: { 'f:data': { 'f:a': {} } },
    });
    clock += 1000;
    o = stored(configMaps.update(o, { ...structuredClone(o), data: { a: '1', b: '2' } }, 'one'));
    // "two" owned nothing else: its entry goes.
    assert.deepEqual(Object.fromEntries(entries(o).map((e) => [e.manager, e.fieldsV1])), { one: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } } });
  });

  it('reports conflicts on fields deep in entries read back, and hands them over when forced', () => {
    const deployments = manager('apps', 'v1', 'Deployment', '', FieldSet.of([fieldElement('status')]));
    const config = (image: string): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'n' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image }] } } },
    });
    let o = stored(deployments.apply(undefined, config('one'), 'kubectl', false));
    const edited = structuredClone(o) as { spec: { template: { spec: { containers: Array<{ image: string }> } } } };
    edited.spec.template.spec.containers[0]!.image = 'two';
    o = stored(deployments.update(o, edited as unknown as Obj, 'kubectl-set'));
    assert.throws(
      () => deployments.apply(structuredClone(o), config('three'), 'kubectl', false),
      (e: unknown) => e instanceof ApplyConflicts && e.message.includes('.spec.template.spec.containers[name="c"].image'),
    );
    const forced = deployments.apply(structuredClone(o), config('three'), 'kubectl', true);
    const owners = Object.fromEntries(entries(forced).map((e) => [e.manager, e.fieldsV1]));
    assert.equal(owners['kubectl-set'], undefined);
    assert.ok(JSON.stringify(owners.kubectl).includes('"f:image"'));
  });
});

const nowTimeOf = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

describe('FieldManager and a "__proto__" key', () => {
  it('tracks it as any other key', () => {
    const created = stored(configMaps.update(undefined, JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","__proto__":{"x":"y"}},"data":{"__proto__":"1"}}') as Obj, 'm'));
    const next = JSON.parse(JSON.stringify(created)) as Obj;
    (next.data as Obj).b = '2';
    const o = configMaps.update(JSON.parse(JSON.stringify(created)) as Obj, next, 'other');
    const owners = Object.fromEntries(entries(o).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners.other, { 'f:data': { 'f:b': {} } });
    assert.ok(Object.hasOwn(o.data as object, '__proto__'));
    assert.equal(Object.getPrototypeOf(o.data), Object.prototype);
  });
});
