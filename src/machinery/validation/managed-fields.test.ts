import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
import { isGoPrintable } from './go-text.js';
import { validateFieldManager, validateManagedFields } from './managed-fields.js';

const path = FieldPath.root('metadata').child('managedFields');

describe('validateManagedFields', () => {
  it('accepts apply and update entries', () => {
    assert.deepEqual(
      validateManagedFields(
        [
          { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
          { manager: 'kubectl', operation: 'Apply', subresource: 'status' },
        ],
        path,
      ),
      [],
    );
    assert.deepEqual(validateManagedFields(null, path), []);
  });
  it('checks operation, fields type, manager and subresource', () => {
    assert.deepEqual(
      validateManagedFields([{ manager: 'm'.repeat(129), operation: 'Patch', fieldsType: 'FieldsV2', subresource: 's'.repeat(257) }], path).map(formatFieldError),
      [
        'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
        'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
        'metadata.managedFields[0].manager: Too long: may not be more than 128 bytes',
        'metadata.managedFields[0].subresource: Too long: may not be more than 256 bytes',
      ],
    );
    assert.deepEqual(validateManagedFields([{}], path).map(formatFieldError), ['metadata.managedFields[0].operation: Invalid value: "": must be `Apply` or `Update`']);
  });
});

describe('validateFieldManager', () => {
  const fm = FieldPath.root('fieldManager');
  it('wants printable characters, reporting byte positions', () => {
    assert.deepEqual(validateFieldManager('kubectl édit', fm), []);
    assert.deepEqual(validateFieldManager('é\tx\n', fm).map(formatFieldError), [
      'fieldManager: Invalid value: "é\\tx\\n": invalid character U+0009 (at position 2)',
      'fieldManager: Invalid value: "é\\tx\\n": invalid character U+000A (at position 4)',
    ]);
    assert.deepEqual(validateFieldManager('a\u00a0', fm).map((e) => e.detail), ['invalid character U+00A0 (at position 1)']);
    assert.deepEqual(validateFieldManager('m'.repeat(129), fm).map(formatFieldError), ['fieldManager: Too long: may not be more than 128 bytes']);
  });
});

describe('validateFieldManager on printable ASCII (its shortcut)', () => {
  const fm = FieldPath.root('fieldManager');
  it('every character from space to ~ is printable for Go, so such a manager is only checked for length', () => {
    let all = '';
    for (let c = 0x20; c <= 0x7e; c++) {
      assert.ok(isGoPrintable(String.fromCharCode(c)), `U+${c.toString(16)}`);
      all += String.fromCharCode(c);
    }
    assert.deepEqual(validateFieldManager(all, fm), []);
    assert.deepEqual(validateFieldManager('m'.repeat(128), fm), []);
    assert.deepEqual(validateFieldManager('m'.repeat(129), fm).map(formatFieldError), ['fieldManager: Too long: may not be more than 128 bytes']);
  });
  it('a control character or a long non-ASCII name takes the full check', () => {
    assert.deepEqual(validateFieldManager('a\x7fb\tc', fm).map(formatFieldError), [
      'fieldManager: Invalid value: "a\\x7fb\\tc": invalid character U+007F (at position 1)',
      'fieldManager: Invalid value: "a\\x7fb\\tc": invalid character U+0009 (at position 3)',
    ]);
    assert.deepEqual(validateFieldManager('é'.repeat(65), fm).map(formatFieldError), ['fieldManager: Too long: may not be more than 128 bytes']);
  });
});
