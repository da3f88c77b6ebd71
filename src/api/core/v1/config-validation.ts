/**
 * ConfigMap and Secret validation, as upstream's ValidateConfigMap(Update) and
 * ValidateSecret(Update): every data key is a config key, a ConfigMap key is
 * not in both data and binaryData, the values total at most 1 MiB, a typed
 * Secret carries the keys its type needs, `type` never changes, and once
 * `immutable` is true neither the flag nor the data may change. (Metadata is
 * validated by the generic store.) Keys are checked in sorted order, so that
 * the message is the same every time; upstream walks a Go map.
 */
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { FieldPath, forbidden, invalid, required, tooLong, type FieldError } from '../../../machinery/field-errors.js';
import { semanticDeepEqual, validateImmutableField } from '../../../machinery/validation/immutable.js';
import { isConfigMapKey } from '../../../machinery/validation/values.js';
import { goJsonSyntaxError } from '../../../machinery/go-json-syntax.js';

/** Upstream's MaxSecretSize, which also bounds a ConfigMap: 1 MiB. */
export const MAX_SECRET_SIZE = 1024 * 1024;

const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

type Bytes = Record<string, string> | undefined;

const sortedKeys = (m: Bytes): string[] => Object.keys(m ?? {}).sort();
const utf8Length = (s: unknown): number => (typeof s === 'string' ? Buffer.byteLength(s, 'utf8') : 0);
/** The length of a []byte field's value: JSON carries it base64-encoded. */
const decodedLength = (s: unknown): number => (typeof s === 'string' ? Buffer.from(s, 'base64').length : 0);

function keyErrors(path: FieldPath, key: string): FieldError[] {
  return isConfigMapKey(key).map((m) => invalid(path.key(key), key, m));
}

export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  const data = cm.data as Bytes;
  const binary = cm.binaryData as Bytes;
  let total = 0;
  const dataPath = FieldPath.root('data');
  for (const key of sortedKeys(data)) {
    errs.push(...keyErrors(dataPath, key));
    if (binary !== undefined && binary !== null && Object.hasOwn(binary, key)) {
      errs.push(invalid(dataPath.key(key), key, 'duplicate of key present in binaryData'));
    }
    total += utf8Length(data![key]);
  }
  const binaryPath = FieldPath.root('binaryData');
  for (const key of sortedKeys(binary)) {
    errs.push(...keyErrors(binaryPath, key));
    total += decodedLength(binary![key]);
  }
  // Upstream's empty path: the error is about the whole object.
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(FieldPath.root(''), '', MAX_SECRET_SIZE));
  return errs;
}

export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  if (old.immutable === true) {
    if (cm.immutable !== true) errs.push(forbidden(FieldPath.root('immutable'), IMMUTABLE_WHEN_SET));
    if (!semanticDeepEqual(cm.data, old.data)) errs.push(forbidden(FieldPath.root('data'), IMMUTABLE_WHEN_SET));
    if (!semanticDeepEqual(cm.binaryData, old.binaryData)) errs.push(forbidden(FieldPath.root('binaryData'), IMMUTABLE_WHEN_SET));
  }
  return [...errs, ...validateConfigMap(cm)];
}

/** Go's json.Unmarshal of bytes into a map[string]interface{}: its error, or undefined when it succeeds. */
function goJsonObjectError(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  const syntax = goJsonSyntaxError(text);
  if (syntax !== undefined) return syntax;
  const value = JSON.parse(text) as unknown;
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool';
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

const REDACTED = '<secret contents redacted>';

export function validateSecret(secret: Secret): FieldError[] {
  const errs: FieldError[] = [];
  const data = secret.data as Bytes;
  const dataPath = FieldPath.root('data');
  let total = 0;
  for (const key of sortedKeys(data)) {
    errs.push(...keyErrors(dataPath, key));
    total += decodedLength(data![key]);
  }
  if (total > MAX_SECRET_SIZE) errs.push(tooLong(dataPath, '', MAX_SECRET_SIZE));

  const has = (key: string): boolean => data !== undefined && data !== null && Object.hasOwn(data, key);
  const jsonKey = (key: string): void => {
    if (!has(key)) {
      errs.push(required(dataPath.key(key)));
      return;
    }
    const error = goJsonObjectError(Buffer.from(data![key] ?? '', 'base64'));
    if (error !== undefined) errs.push(invalid(dataPath.key(key), REDACTED, error));
  };
  switch (secret.type ?? '') {
    case 'kubernetes.io/service-account-token':
      // Only the name: the uid and the token may be added later by the token controller.
      if ((secret.metadata?.annotations?.['kubernetes.io/service-account.name'] ?? '') === '') {
        errs.push(required(FieldPath.root('metadata').child('annotations').key('kubernetes.io/service-account.name')));
      }
      break;
    case 'kubernetes.io/dockercfg':
      jsonKey('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      jsonKey('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one of them must be there.
      if (!has('username') && !has('password')) errs.push(required(dataPath.key('username')), required(dataPath.key('password')));
      break;
    case 'kubernetes.io/ssh-auth':
      if (decodedLength(data?.['ssh-privatekey']) === 0) errs.push(required(dataPath.key('ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(required(dataPath.key('tls.crt')));
      if (!has('tls.key')) errs.push(required(dataPath.key('tls.key')));
      break;
    default:
  }
  return errs;
}

export function validateSecretUpdate(secret: Secret, old: Secret): FieldError[] {
  const errs: FieldError[] = [...validateImmutableField(secret.type ?? '', old.type ?? '', FieldPath.root('type'))];
  if (old.immutable === true) {
    if (secret.immutable !== true) errs.push(forbidden(FieldPath.root('immutable'), IMMUTABLE_WHEN_SET));
    // stringData has been folded into data before validation, as upstream's conversion does.
    if (!semanticDeepEqual(secret.data, old.data)) errs.push(forbidden(FieldPath.root('data'), IMMUTABLE_WHEN_SET));
  }
  return [...errs, ...validateSecret(secret)];
}
