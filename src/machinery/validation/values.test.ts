import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldErrors } from '../field-errors.js';
import {
  intOrStringValue,
  isCIdentifier,
  isConfigMapKey,
  isEnvVarName,
  isHTTPHeaderName,
  isInRange,
  isNotMoreThan100Percent,
  isRelaxedEnvVarName,
  isValidGroupID,
  isValidPercent,
  isValidPortName,
  isValidPortNum,
  isValidUserID,
  percentValue,
  validateNonnegativeField,
  validatePortNumOrName,
  validatePositiveIntOrPercent,
} from './values.js';

const PERCENT =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

describe('ports', () => {
  it('isValidPortNum allows 1 to 65535', () => {
    assert.deepEqual(isValidPortNum(1), []);
    assert.deepEqual(isValidPortNum(65535), []);
    assert.deepEqual(isValidPortNum(0), ['must be between 1 and 65535, inclusive']);
    assert.deepEqual(isValidPortNum(65536), ['must be between 1 and 65535, inclusive']);
    assert.deepEqual(isValidPortNum(-1), ['must be between 1 and 65535, inclusive']);
  });
  it('isValidPortName checks every rule and reports each', () => {
    assert.deepEqual(isValidPortName('http'), []);
    assert.deepEqual(isValidPortName('h2c-9'), []);
    assert.deepEqual(isValidPortName('a'.repeat(16)), ['must be no more than 15 characters']);
    assert.deepEqual(isValidPortName('HTTP'), [
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
    assert.deepEqual(isValidPortName('80'), ['must contain at least one letter (a-z)']);
    assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
    assert.deepEqual(isValidPortName('-ab-'), ['must not begin or end with a hyphen']);
    assert.deepEqual(isValidPortName(''), [
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
  });
  it('validatePortNumOrName reads numbers as numbers and strings as names', () => {
    const path = FieldPath.root('spec').child('ports').index(0).child('targetPort');
    assert.deepEqual(validatePortNumOrName(8080, path), []);
    assert.deepEqual(validatePortNumOrName('http', path), []);
    assert.equal(
      formatFieldErrors(validatePortNumOrName(70000, path)),
      'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    assert.equal(
      formatFieldErrors(validatePortNumOrName('8080', path)),
      'spec.ports[0].targetPort: Invalid value: "8080": must contain at least one letter (a-z)',
    );
  });
});

describe('ranges and IDs', () => {
  it('isInRange is inclusive', () => {
    assert.deepEqual(isInRange(5, 5, 10), []);
    assert.deepEqual(isInRange(11, 5, 10), ['must be between 5 and 10, inclusive']);
  });
  it('user and group IDs run from 0 to 2^31-1', () => {
    assert.deepEqual(isValidUserID(0), []);
    assert.deepEqual(isValidUserID(2147483647), []);
    assert.deepEqual(isValidUserID(2147483648), ['must be between 0 and 2147483647, inclusive']);
    assert.deepEqual(isValidGroupID(-1), ['must be between 0 and 2147483647, inclusive']);
  });
  it('validateNonnegativeField', () => {
    const path = FieldPath.root('spec').child('replicas');
    assert.deepEqual(validateNonnegativeField(0, path), []);
    assert.equal(formatFieldErrors(validateNonnegativeField(-1, path)), 'spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });
});

describe('percent and int-or-string', () => {
  const path = FieldPath.root('spec').child('strategy', 'rollingUpdate', 'maxSurge');
  it('isValidPercent', () => {
    assert.deepEqual(isValidPercent('25%'), []);
    assert.deepEqual(isValidPercent('0%'), []);
    assert.deepEqual(isValidPercent('25'), [PERCENT]);
    assert.deepEqual(isValidPercent('-5%'), [PERCENT]);
    assert.deepEqual(isValidPercent('2.5%'), [PERCENT]);
  });
  it('percentValue reads only valid percents', () => {
    assert.equal(percentValue('150%'), 150);
    assert.equal(percentValue('x%'), undefined);
    assert.equal(percentValue(150), undefined);
  });
  it("prints an IntOrString as upstream's %#v", () => {
    assert.equal(
      formatFieldErrors([{ type: 'FieldValueInvalid', field: 'x', value: intOrStringValue('a"b'), detail: 'd' }]),
      'x: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"a\\"b"}: d',
    );
    assert.equal(
      formatFieldErrors([{ type: 'FieldValueInvalid', field: 'x', value: intOrStringValue(3), detail: 'd' }]),
      'x: Invalid value: intstr.IntOrString{Type:0, IntVal:3, StrVal:""}: d',
    );
  });
  it('validatePositiveIntOrPercent allows zero and percents', () => {
    assert.deepEqual(validatePositiveIntOrPercent(0, path), []);
    assert.deepEqual(validatePositiveIntOrPercent('25%', path), []);
    assert.equal(
      formatFieldErrors(validatePositiveIntOrPercent(-1, path)),
      'spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0',
    );
    assert.equal(
      formatFieldErrors(validatePositiveIntOrPercent('10', path)),
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"10"}: ${PERCENT}`,
    );
  });
  it('isNotMoreThan100Percent', () => {
    assert.deepEqual(isNotMoreThan100Percent('100%', path), []);
    assert.deepEqual(isNotMoreThan100Percent(500, path), []);
    assert.deepEqual(isNotMoreThan100Percent('abc', path), []);
    assert.equal(
      formatFieldErrors(isNotMoreThan100Percent('101%', path)),
      'spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"101%"}: must not be greater than 100%',
    );
  });
});

describe('identifiers and keys', () => {
  it('isCIdentifier', () => {
    assert.deepEqual(isCIdentifier('_a1'), []);
    assert.deepEqual(isCIdentifier('1a'), [
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
    ]);
  });
  it('isHTTPHeaderName', () => {
    assert.deepEqual(isHTTPHeaderName('X-Header-Name'), []);
    assert.deepEqual(isHTTPHeaderName('X_Header'), [
      "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
    ]);
  });
  it('isEnvVarName', () => {
    const msg =
      "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";
    assert.deepEqual(isEnvVarName('MY_ENV.NAME'), []);
    assert.deepEqual(isEnvVarName('1A'), [msg]);
    assert.deepEqual(isEnvVarName('.'), ["must not be '.'"]);
    assert.deepEqual(isEnvVarName('..'), ["must not be '..'"]);
    assert.deepEqual(isEnvVarName('..a'), ["must not start with '..'"]);
    assert.deepEqual(isEnvVarName(''), [msg]);
  });
  it('isRelaxedEnvVarName', () => {
    assert.deepEqual(isRelaxedEnvVarName('1 A:b'), []);
    assert.deepEqual(isRelaxedEnvVarName(''), ['environment variable name must be non-empty']);
    assert.deepEqual(isRelaxedEnvVarName('a=b'), [
      "a valid environment variable name must consist only of printable ASCII characters other than '='",
    ]);
    assert.deepEqual(isRelaxedEnvVarName('é'), [
      "a valid environment variable name must consist only of printable ASCII characters other than '='",
    ]);
  });
  it('isConfigMapKey', () => {
    const msg =
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    assert.deepEqual(isConfigMapKey('app.properties'), []);
    assert.deepEqual(isConfigMapKey('a/b'), [msg]);
    assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
    assert.deepEqual(isConfigMapKey('..data'), ["must not start with '..'"]);
    assert.deepEqual(isConfigMapKey('k'.repeat(254)), ['must be no more than 253 characters']);
  });
});
