import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
import { validateFinalizerName, validateFinalizers, validateNoNewFinalizers, validateStandardFinalizerName } from './finalizers.js';

const path = FieldPath.root('metadata').child('finalizers');
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('validateFinalizers', () => {
  it('accepts qualified names', () => {
    assert.deepEqual(validateFinalizers(['kubernetes.io/pvc-protection', 'orphan', 'example.com/Cleanup'], path), []);
    assert.deepEqual(validateFinalizers(undefined, path), []);
  });
  it('rejects a bad name, naming the list', () => {
    assert.deepEqual(validateFinalizers(['ok', 'bad_'], path).map(formatFieldError), [`metadata.finalizers: Invalid value: "bad_": ${NAME_PART}`]);
    assert.deepEqual(validateFinalizerName('a/b/c', path).map(formatFieldError), [
      "metadata.finalizers: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
  it('rejects orphan with foregroundDeletion', () => {
    assert.deepEqual(validateFinalizers(['orphan', 'x/y', 'foregroundDeletion'], path).map(formatFieldError), [
      'metadata.finalizers: Invalid value: []string{"orphan", "x/y", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });
});

describe('validateStandardFinalizerName', () => {
  it('lets an unqualified name through only if it is standard', () => {
    for (const ok of ['kubernetes', 'orphan', 'foregroundDeletion', 'example.com/x']) assert.deepEqual(validateStandardFinalizerName(ok, path.index(0)), [], ok);
    assert.deepEqual(validateStandardFinalizerName('my-finalizer', path.index(1)).map(formatFieldError), [
      'metadata.finalizers[1]: Invalid value: "my-finalizer": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});

describe('validateNoNewFinalizers', () => {
  it('allows removal and forbids addition, listing the new ones sorted', () => {
    assert.deepEqual(validateNoNewFinalizers(['a/x'], ['a/x', 'b/y'], path), []);
    assert.deepEqual(validateNoNewFinalizers(['z/new', 'a/x', 'b/new', 'b/new'], ['a/x'], path).map(formatFieldError), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b/new", "z/new"}',
    ]);
    assert.deepEqual(validateNoNewFinalizers(null, undefined, path), []);
  });
});
