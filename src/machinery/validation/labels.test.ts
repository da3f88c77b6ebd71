import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError, formatFieldErrors } from '../field-errors.js';
import {
  annotationsSize,
  labelSelectorHasInvalidLabelValue,
  TOTAL_ANNOTATION_SIZE_LIMIT_B,
  validateAnnotations,
  validateFieldSelectorRequirement,
  validateLabelName,
  validateLabels,
  validateLabelSelector,
} from './labels.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const labelsPath = FieldPath.root('metadata').child('labels');
const annotationsPath = FieldPath.root('metadata').child('annotations');

describe('validateLabels', () => {
  it('accepts valid labels, absent and null', () => {
    assert.deepEqual(validateLabels({ app: 'web', 'app.kubernetes.io/name': 'x', empty: '' }, labelsPath), []);
    assert.deepEqual(validateLabels(undefined, labelsPath), []);
    assert.deepEqual(validateLabels(null, labelsPath), []);
  });
  it('decides plain keys and values as the full rules do (the fast path at their edges)', () => {
    const parts = ['a', 'A9', 'x'.repeat(63), 'x'.repeat(64), 'a-b_c.d', '-a', 'a-', '_a', 'a_', '.a', 'a.', 'a b', 'é', 'ab/', '/ab', 'p.io/a', ''];
    for (const key of parts) {
      for (const value of parts) {
        const full = [...isQualifiedName(key), ...isValidLabelValue(value)].length === 0;
        assert.equal(validateLabels({ [key]: value }, labelsPath).length === 0, full, `${JSON.stringify(key)}: ${JSON.stringify(value)}`);
      }
    }
  });
  it('answers the same for keys and values it has already found valid', () => {
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(validateLabels({ app: 'web', 'p.io/a': 'x'.repeat(63) }, labelsPath), []);
      assert.equal(validateLabels({ app: 'x'.repeat(64) }, labelsPath).length, 1);
      assert.equal(validateLabels({ ['x'.repeat(64)]: 'web' }, labelsPath).length, 1);
    }
  });
  it('names the map, not the key, as upstream does', () => {
    assert.equal(
      formatFieldErrors(validateLabels({ 'foo_': 'x' }, labelsPath)),
      `metadata.labels: Invalid value: "foo_": ${NAME_PART}`,
    );
    assert.equal(
      formatFieldErrors(validateLabels({ app: 'x'.repeat(64) }, labelsPath)),
      `metadata.labels: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
    );
    assert.equal(
      formatFieldErrors(validateLabels({ app: 'a b' }, labelsPath)),
      `metadata.labels: Invalid value: "a b": ${LABEL_VALUE}`,
    );
  });
  it('reports key and value errors in order', () => {
    assert.deepEqual(validateLabels({ 'Bad/key': '-v' }, labelsPath).map(formatFieldError), [
      `metadata.labels: Invalid value: "Bad/key": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `metadata.labels: Invalid value: "-v": ${LABEL_VALUE}`,
    ]);
  });
  it('validateLabelName', () => {
    assert.deepEqual(validateLabelName('a/b', labelsPath), []);
    assert.equal(formatFieldErrors(validateLabelName('', labelsPath)), `[metadata.labels: Invalid value: "": name part must be non-empty, metadata.labels: Invalid value: "": ${NAME_PART}]`);
  });
});

describe('validateAnnotations', () => {
  it('accepts keys in any case', () => {
    assert.deepEqual(validateAnnotations({ 'Example.COM/Key': 'any value at all\n' }, annotationsPath), []);
  });
  it('shows the key as given', () => {
    assert.equal(
      formatFieldErrors(validateAnnotations({ 'Bad Key': 'v' }, annotationsPath)),
      `metadata.annotations: Invalid value: "Bad Key": ${NAME_PART}`,
    );
  });
  it('limits keys and values together to 256 KiB', () => {
    assert.equal(TOTAL_ANNOTATION_SIZE_LIMIT_B, 262144);
    const fits = { a: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT_B - 1) };
    assert.equal(annotationsSize(fits), TOTAL_ANNOTATION_SIZE_LIMIT_B);
    assert.deepEqual(validateAnnotations(fits, annotationsPath), []);
    const over = { 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT_B) };
    const errs = validateAnnotations(over, annotationsPath);
    assert.equal(formatFieldErrors(errs), 'metadata.annotations: Too long: may not be more than 262144 bytes');
    assert.equal(errs[0]?.type, 'FieldValueTooLong');
  });
  it('counts bytes, not characters', () => {
    assert.equal(annotationsSize({ é: 'é' }), 4);
    const errs = validateAnnotations({ a: 'é'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT_B / 2) }, annotationsPath);
    assert.equal(formatFieldErrors(errs), 'metadata.annotations: Too long: may not be more than 262144 bytes');
  });
});

describe('validateLabelSelector', () => {
  const path = FieldPath.root('spec').child('selector');
  it('accepts valid and absent selectors', () => {
    assert.deepEqual(validateLabelSelector(undefined, {}, path), []);
    assert.deepEqual(
      validateLabelSelector(
        {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['a', 'b'] },
            { key: 'env', operator: 'DoesNotExist' },
          ],
        },
        {},
        path,
      ),
      [],
    );
  });
  it('checks matchLabels and every expression', () => {
    const errs = validateLabelSelector(
      {
        matchLabels: { app: '-' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: [] },
          { key: 'env', operator: 'Exists', values: ['x'] },
          { key: 'bad key', operator: 'Like', values: ['ok', 'not ok'] },
        ],
      },
      {},
      path,
    );
    assert.deepEqual(errs.map(formatFieldError), [
      `spec.selector.matchLabels: Invalid value: "-": ${LABEL_VALUE}`,
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Like": not a valid selector operator',
      `spec.selector.matchExpressions[2].key: Invalid value: "bad key": ${NAME_PART}`,
      `spec.selector.matchExpressions[2].values[1]: Invalid value: "not ok": ${LABEL_VALUE}`,
    ]);
  });
  it('honours the options', () => {
    const selector = { matchExpressions: [{ key: 'k', operator: 'Like', values: ['not ok'] }] };
    assert.deepEqual(
      validateLabelSelector(selector, { allowInvalidLabelValueInSelector: true, allowUnknownOperatorInRequirement: true }, path),
      [],
    );
    assert.equal(labelSelectorHasInvalidLabelValue(selector), true);
    assert.equal(labelSelectorHasInvalidLabelValue({ matchExpressions: [{ key: 'k', operator: 'In', values: ['ok'] }] }), false);
    assert.equal(labelSelectorHasInvalidLabelValue(null), false);
  });
});

describe('validateFieldSelectorRequirement', () => {
  const path = FieldPath.root('spec').child('fieldSelector', 'requirements').index(0);
  it('needs a key and values as the operator says', () => {
    assert.deepEqual(validateFieldSelectorRequirement({ key: 'spec.nodeName', operator: 'In', values: ['a'] }, {}, path), []);
    assert.deepEqual(validateFieldSelectorRequirement({ key: '', operator: 'Exists', values: ['a'] }, {}, path).map(formatFieldError), [
      'spec.fieldSelector.requirements[0].key: Required value: must be specified',
      "spec.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    assert.deepEqual(validateFieldSelectorRequirement({ key: 'k', operator: '=' }, { allowUnknownOperatorInRequirement: true }, path), []);
  });
});
