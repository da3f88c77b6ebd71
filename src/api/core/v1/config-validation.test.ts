import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { formatFieldError, formatFieldErrors, type FieldError } from '../../../machinery/field-errors.js';
import { MAX_SECRET_SIZE, validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from './config-validation.js';

const messages = (errs: FieldError[]): string[] => errs.map(formatFieldError);
const cm = (o: Partial<ConfigMap>): ConfigMap => ({ metadata: { name: 'c' }, ...o });
const secret = (o: Partial<Secret>): Secret => ({ metadata: { name: 's' }, type: 'Opaque', ...o });
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const KEY_RULE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe('validateConfigMap', () => {
  it('accepts config keys in data and binaryData', () => {
    assert.deepEqual(validateConfigMap(cm({ data: { 'a.conf': 'x', KEY_1: '', 'b-c': 'y' }, binaryData: { 'logo.png': b64('\u0000\u0001') } })), []);
    assert.deepEqual(validateConfigMap(cm({})), []);
  });

  it('refuses a bad key, a key in both bags and more than 1 MiB of values, with upstream messages', () => {
    assert.deepEqual(messages(validateConfigMap(cm({ data: { 'k k': 'v', '..x': 'v' } }))), [
      `data[..x]: Invalid value: "..x": must not start with '..'`,
      `data[k k]: Invalid value: "k k": ${KEY_RULE}`,
    ]);
    assert.deepEqual(messages(validateConfigMap(cm({ data: { same: 'v' }, binaryData: { same: b64('v'), 'bad/key': '' } }))), [
      'data[same]: Invalid value: "same": duplicate of key present in binaryData',
      `binaryData[bad/key]: Invalid value: "bad/key": ${KEY_RULE}`,
    ]);
    // The total counts data's UTF-8 bytes and binaryData's decoded bytes.
    assert.deepEqual(validateConfigMap(cm({ data: { a: 'x'.repeat(MAX_SECRET_SIZE - 2) }, binaryData: { b: b64('yy') } })), []);
    assert.deepEqual(messages(validateConfigMap(cm({ data: { a: 'x'.repeat(MAX_SECRET_SIZE - 1), b: 'é' } }))), [': Too long: may not be more than 1048576 bytes']);
  });

  it('once immutable, refuses changes of the data and of the flag, and still validates the new object', () => {
    const old = cm({ immutable: true, data: { a: '1' } });
    assert.deepEqual(validateConfigMapUpdate(cm({ immutable: true, data: { a: '1' }, metadata: { name: 'c', labels: { x: 'y' } } }), old), []);
    assert.equal(
      formatFieldErrors(validateConfigMapUpdate(cm({ immutable: false, data: { a: '2' }, binaryData: { b: '' } }), old)),
      '[immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set, binaryData: Forbidden: field is immutable when `immutable` is set]',
    );
    // A mutable one may become immutable, and change on the way.
    assert.deepEqual(validateConfigMapUpdate(cm({ immutable: true, data: { a: '2' } }), cm({ data: { a: '1' } })), []);
    assert.deepEqual(messages(validateConfigMapUpdate(cm({ data: { 'a b': '1' } }), cm({}))), [`data[a b]: Invalid value: "a b": ${KEY_RULE}`]);
  });
});

describe('validateSecret', () => {
  it('checks keys and the decoded size', () => {
    assert.deepEqual(messages(validateSecret(secret({ data: { 'no spaces': b64('x') } }))), [`data[no spaces]: Invalid value: "no spaces": ${KEY_RULE}`]);
    assert.deepEqual(validateSecret(secret({ data: { a: Buffer.alloc(MAX_SECRET_SIZE).toString('base64') } })), []);
    assert.deepEqual(messages(validateSecret(secret({ data: { a: Buffer.alloc(MAX_SECRET_SIZE + 1).toString('base64') } }))), ['data: Too long: may not be more than 1048576 bytes']);
  });

  it('asks each built-in type for its keys', () => {
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '' } }))), ['data[tls.key]: Required value']);
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/tls' }))), ['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/basic-auth' }))), ['data[username]: Required value', 'data[password]: Required value']);
    assert.deepEqual(validateSecret(secret({ type: 'kubernetes.io/basic-auth', data: { password: '' } })), []);
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }))), ['data[ssh-privatekey]: Required value']);
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/service-account-token' }))), ['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
    assert.deepEqual(
      validateSecret(secret({ type: 'kubernetes.io/service-account-token', metadata: { name: 's', annotations: { 'kubernetes.io/service-account.name': 'default' } } })),
      [],
    );
    assert.deepEqual(validateSecret(secret({ type: 'example.com/anything', data: { x: '' } })), []);
  });

  it('wants well-formed JSON objects in docker config secrets, and keeps their contents out of the message', () => {
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/dockerconfigjson' }))), ['data[.dockerconfigjson]: Required value']);
    assert.deepEqual(validateSecret(secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } })), []);
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":') } }))), [
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
    ]);
    assert.deepEqual(messages(validateSecret(secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('[1]') } }))), [
      'data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    ]);
  });

  it('keeps the type, and once immutable the data and the flag', () => {
    assert.deepEqual(messages(validateSecretUpdate(secret({ type: 'example.com/x' }), secret({}))), ['type: Invalid value: "example.com/x": field is immutable']);
    const old = secret({ immutable: true, data: { a: b64('1') } });
    assert.deepEqual(validateSecretUpdate(secret({ immutable: true, data: { a: b64('1') } }), old), []);
    assert.deepEqual(messages(validateSecretUpdate(secret({ data: { a: b64('2') } }), old)), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});
