import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, fieldElement } from './field-set.js';
import { decodeManagedFields, encodeManagedFields, identity, identityKey, isResetRequest, ManagedFieldsError, nowTime, type Managed } from './managed-fields.js';

describe('managedFields entries', () => {
  it('decodes entries, rejecting what upstream rejects', () => {
    const ok = { manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } };
    assert.equal(decodeManagedFields([ok]).size, 1);
    assert.equal(decodeManagedFields(undefined).size, 0);
    const bad: Array<[unknown, RegExp]> = [
      [{ ...ok, operation: 'Patch' }, /operation must be `Apply` or `Update`/],
      [{ ...ok, apiVersion: '' }, /apiVersion must not be empty/],
      [{ ...ok, fieldsType: undefined }, /missing fieldsType in managed fields entry 0/],
      [{ ...ok, fieldsType: 'FieldsV2' }, /invalid fieldsType "FieldsV2" in managed fields entry 0/],
      [{ ...ok, fieldsV1: { 'f:data': 1 } }, /error decoding set/],
    ];
    for (const [entry, message] of bad) assert.throws(() => decodeManagedFields([entry]), (e: unknown) => e instanceof ManagedFieldsError && message.test(e.message));
    assert.throws(() => decodeManagedFields('x'), ManagedFieldsError);
  });

  it('keys Apply entries without their apiVersion, Update entries with it', () => {
    assert.equal(identityKey(identity('kubectl', 'Apply', 'v1', '')), '{"manager":"kubectl","operation":"Apply"}');
    assert.equal(identityKey(identity('', 'Update', 'apps/v1', 'status')), '{"manager":"unknown","operation":"Update","apiVersion":"apps/v1","subresource":"status"}');
  });

  it('encodes entries sorted by operation, time, manager', () => {
    const managed: Managed = new Map();
    const add = (manager: string, operation: 'Apply' | 'Update', time: string): void => {
      const id = identity(manager, operation, 'v1', '');
      managed.set(identityKey(id), { identity: id, apiVersion: 'v1', set: FieldSet.of([fieldElement('a')]), time });
    };
    add('z', 'Update', '2026-01-01T00:00:00Z');
    add('b', 'Update', '2026-01-01T00:00:00Z');
    add('a', 'Update', '2026-01-02T00:00:00Z');
    add('k', 'Apply', '2026-01-03T00:00:00Z');
    assert.deepEqual(encodeManagedFields(managed)?.map((e) => e.manager), ['k', 'b', 'z', 'a']);
    assert.equal(encodeManagedFields(new Map()), undefined);
  });

  it('knows a reset request and writes times as upstream does', () => {
    assert.ok(isResetRequest([]));
    assert.ok(isResetRequest([{}]));
    assert.ok(!isResetRequest(undefined));
    assert.ok(!isResetRequest([{ manager: 'x' }]));
    assert.equal(nowTime(new Date('2026-05-06T07:08:09.123Z')), '2026-05-06T07:08:09Z');
  });
});

describe('manager identity keys and entry times', () => {
  it('writes the identity key as JSON of its non-empty fields, in order', () => {
    for (const [manager, operation, apiVersion, subresource] of [
      ['kubectl', 'Update', 'v1', ''],
      ['', 'Update', 'apps/v1', 'status'],
      ['k"q\\x\u2028<', 'Apply', 'v1', 'scale'],
      ['m', 'Update', '', ''],
    ] as const) {
      const o: Record<string, string> = {};
      if (manager !== '') o.manager = manager;
      o.operation = operation;
      if (operation !== 'Apply' && apiVersion !== '') o.apiVersion = apiVersion;
      if (subresource !== '') o.subresource = subresource;
      assert.equal(identityKey({ manager, operation, apiVersion, subresource }), JSON.stringify(o));
    }
  });

  it('writes times to the second, in UTC, the same text for writes within one second', () => {
    assert.equal(nowTime(new Date('2026-03-04T05:06:07.890Z')), '2026-03-04T05:06:07Z');
    assert.equal(nowTime(new Date('2026-03-04T05:06:07.100Z')), '2026-03-04T05:06:07Z');
    assert.equal(nowTime(new Date('2026-03-04T05:06:08.000Z')), '2026-03-04T05:06:08Z');
    assert.equal(nowTime(new Date('1969-12-31T23:59:59.500Z')), '1969-12-31T23:59:59Z');
    assert.throws(() => nowTime(new Date(NaN)), RangeError);
  });

  it('writes the same time from milliseconds as from a Date, and the current time by default', () => {
    for (const t of ['2026-03-04T05:06:07.890Z', '2026-03-04T05:06:08.000Z', '1969-12-31T23:59:59.500Z', '2026-03-04T05:06:07.100Z']) {
      assert.equal(nowTime(Date.parse(t)), nowTime(new Date(t)));
    }
    const before = nowTime(new Date());
    const now = nowTime();
    const after = nowTime(new Date());
    assert.ok(before <= now && now <= after, `${before} ${now} ${after}`);
  });

  it('sorts entries by operation, then time, then manager', () => {
    const set = FieldSet.of([fieldElement('a')]);
    const managed: Managed = new Map();
    const add = (manager: string, operation: 'Apply' | 'Update', time: string | undefined): void => {
      const id = identity(manager, operation, 'v1', '');
      managed.set(identityKey(id), { identity: id, apiVersion: 'v1', set, time });
    };
    add('z', 'Update', '2026-01-01T00:00:05Z');
    add('b', 'Update', '2026-01-01T00:00:01Z');
    add('a', 'Update', '2026-01-01T00:00:05Z');
    add('x', 'Apply', '2026-01-01T00:00:09Z');
    add('n', 'Update', undefined);
    assert.deepEqual(encodeManagedFields(managed)!.map((e) => e.manager), ['x', 'n', 'b', 'a', 'z']);
  });
});
