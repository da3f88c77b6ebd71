import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
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
