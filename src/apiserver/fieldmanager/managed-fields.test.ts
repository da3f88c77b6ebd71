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
