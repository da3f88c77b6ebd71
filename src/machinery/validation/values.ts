/**
 * Scalar field formats shared by many kinds (upstream's
 * k8s.io/apimachinery pkg/util/validation and the helpers of
 * pkg/apis/core/validation and pkg/apis/apps/validation): ports, port names,
 * ranges, user and group IDs, percents and int-or-string values, identifiers,
 * environment variable names, config map keys.
 */

import { internalError, invalid, type FieldError, type FieldPath } from '../field-errors.js';
import { byteLength, goQuote, goSyntax } from './go-text.js';
import { emptyError, inclusiveRangeError, IS_NEGATIVE_ERROR_MSG, maxLenError, regexError } from './messages.js';
import { DNS1123_SUBDOMAIN_MAX_LENGTH } from './names.js';

/** A Kubernetes IntOrString as it appears in JSON: a number or a string. */
export type IntOrString = number | string;

/** A port number: `1` to `65535`. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 && Number.isInteger(port) ? [] : [inclusiveRangeError(1, 65535)];
}

/** A number in `[min, max]`. */
export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

const MAX_ID = 2147483647;

/** A Unix user ID: `0` to `2147483647`. */
export function isValidUserID(uid: number): string[] {
  return isInRange(uid, 0, MAX_ID);
}

/** A Unix group ID: `0` to `2147483647`. */
export function isValidGroupID(gid: number): string[] {
  return isInRange(gid, 0, MAX_ID);
}

/**
 * An IANA service (port) name: at most 15 characters of `[-a-z0-9]`, at least
 * one letter, no `--`, not starting or ending with `-`.
 */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

const PERCENT_FMT = '[0-9]+%';

/** A percent string: digits then `%`, such as `25%`. */
export function isValidPercent(percent: string): string[] {
  if (/^[0-9]+%$/.test(percent)) return [];
  return [regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%')];
}

const C_IDENTIFIER_FMT = '[A-Za-z_][A-Za-z0-9_]*';

/** A C identifier: `my_name`. */
export function isCIdentifier(value: string): string[] {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) return [];
  return [
    regexError(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
      C_IDENTIFIER_FMT,
      'my_name',
      'MY_NAME',
      'MyName',
    ),
  ];
}

const HTTP_HEADER_NAME_FMT = '[-A-Za-z0-9]+';

/** An HTTP header name as Go's HTTP library accepts it: `X-Header-Name`. */
export function isHTTPHeaderName(value: string): string[] {
  if (/^[-A-Za-z0-9]+$/.test(value)) return [];
  return [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", HTTP_HEADER_NAME_FMT, 'X-Header-Name')];
}

function chDirPrefixErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';

/** An environment variable name under upstream's classic rule: `MY_ENV.NAME`, not starting with a digit. */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_NAME_FMT,
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    );
  }
  return [...errs, ...chDirPrefixErrors(value)];
}

/** An environment variable name under the relaxed rule: printable ASCII other than `=`. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push(`environment variable name ${emptyError()}`);
  if (/[^\x20-\x7e]|=/.test(value)) {
    errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  }
  return errs;
}

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';

/** A key of a config map or secret: `key.name`, at most 253 characters, not `.` or `..`. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!/^[-._a-zA-Z0-9]+$/.test(value)) {
    errs.push(
      regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'),
    );
  }
  return [...errs, ...chDirPrefixErrors(value)];
}

/** A count or size that may not be negative: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export function validateNonnegativeField(value: number, path: FieldPath): FieldError[] {
  return value < 0 ? [invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** A port given by number (1-65535) or by name (an IANA service name), as a container port reference. */
export function validatePortNumOrName(port: IntOrString, path: FieldPath): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(path, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(path, port, m));
  return [internalError(path, `unknown type: ${String(port)}`)];
}

/** An IntOrString as upstream's messages print it (`%#v` of the Go struct). */
export function intOrStringValue(value: IntOrString): unknown {
  return typeof value === 'number'
    ? goSyntax(`intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`)
    : goSyntax(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(value)}}`);
}

/** The percentage an IntOrString holds, if it is a valid percent string. */
export function percentValue(value: IntOrString): number | undefined {
  if (typeof value !== 'string' || isValidPercent(value).length > 0) return undefined;
  return Number(value.slice(0, -1));
}

/**
 * A non-negative integer or a percent string (`maxSurge`, `maxUnavailable`):
 * upstream's ValidatePositiveIntOrPercent, which in fact allows zero.
 */
export function validatePositiveIntOrPercent(value: IntOrString, path: FieldPath): FieldError[] {
  if (typeof value === 'string') return isValidPercent(value).map((m) => invalid(path, intOrStringValue(value), m));
  if (typeof value === 'number') return validateNonnegativeField(value, path);
  return [invalid(path, intOrStringValue(String(value)), "must be an integer or percentage (e.g '5%%')")];
}

/** A percent string, if the value is one, of at most 100%. */
export function isNotMoreThan100Percent(value: IntOrString, path: FieldPath): FieldError[] {
  const percent = percentValue(value);
  if (percent === undefined || percent <= 100) return [];
  return [invalid(path, intOrStringValue(value), 'must not be greater than 100%')];
}
