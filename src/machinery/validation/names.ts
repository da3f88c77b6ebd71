/**
 * Name formats (upstream's k8s.io/apimachinery pkg/util/validation and
 * pkg/api/validation/path): string validators that return the list of what is
 * wrong with a value, empty when it is valid, and the name validators each
 * kind of object uses for `metadata.name` and `metadata.generateName`.
 *
 * Lengths are counted in UTF-8 bytes, as upstream counts them.
 */

import { invalid, required, type FieldError, type FieldPath } from '../field-errors.js';
import { byteLength } from './go-text.js';
import { emptyError, maxLenError, regexError } from './messages.js';
import { ValidStrings } from './valid-strings.js';

const anchored = (format: string): RegExp => new RegExp(`^(?:${format})$`);

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = anchored(QUALIFIED_NAME_FMT);
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX_LENGTH = 63;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = anchored(LABEL_VALUE_FMT);
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/** The longest label value allowed, in bytes. */
export const LABEL_VALUE_MAX_LENGTH = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_RE = anchored(DNS1123_LABEL_FMT);
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
/** The longest RFC 1123 label, in bytes. */
export const DNS1123_LABEL_MAX_LENGTH = 63;

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = anchored(DNS1123_SUBDOMAIN_FMT);
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
/** The longest RFC 1123 subdomain, in bytes. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const DNS1123_LABEL_UNDERSCORE_FMT = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_UNDERSCORE_RE = anchored(`${DNS1123_LABEL_UNDERSCORE_FMT}(\\.${DNS1123_LABEL_UNDERSCORE_FMT})*`);
const DNS1123_SUBDOMAIN_UNDERSCORE_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = anchored(DNS1035_LABEL_FMT);
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
/** The longest RFC 1035 label, in bytes. */
export const DNS1035_LABEL_MAX_LENGTH = 63;

const WILDCARD_DNS1123_SUBDOMAIN_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_DNS1123_SUBDOMAIN_RE = anchored(WILDCARD_DNS1123_SUBDOMAIN_FMT);
const WILDCARD_DNS1123_SUBDOMAIN_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = anchored(HTTP_PATH_FMT);

/**
 * What Kubernetes calls a qualified name: an optional DNS subdomain prefix and
 * `/`, then a name of at most 63 characters (label and annotation keys,
 * finalizers, condition types). `isQualifiedName('example.com/MyName')` is `[]`.
 */
export function isQualifiedName(value: string): string[] {
  return PLAIN_QUALIFIED_NAMES.test(value) ? [] : qualifiedNameMessages(value);
}

/** isQualifiedName's full check, whatever the value (exported for the tests of the shortcut). */
export function qualifiedNameMessages(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/**
 * A name part of 1 to 63 ASCII characters of `[-A-Za-z0-9_.]`, alphanumeric at
 * both ends: QUALIFIED_NAME_RE within its length limit (ASCII, so bytes are characters).
 */
const PLAIN_NAME_PART = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * The common valid case of isQualifiedName, decided without building its
 * messages: `name` or `prefix/name` with a valid subdomain prefix. False
 * means only "not decided here": the full check then finds the messages.
 */
function isPlainQualifiedName(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return PLAIN_NAME_PART.test(value);
  return (
    slash > 0 &&
    slash <= DNS1123_SUBDOMAIN_MAX_LENGTH &&
    value.indexOf('/', slash + 1) < 0 &&
    PLAIN_NAME_PART.test(value.slice(slash + 1)) &&
    DNS1123_SUBDOMAIN_RE.test(value.slice(0, slash))
  );
}

const PLAIN_QUALIFIED_NAMES = new ValidStrings(isPlainQualifiedName);

/** A label value: empty, or at most 63 characters of `[-A-Za-z0-9_.]` starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** An RFC 1123 label (namespace names, container names): `my-name`, at most 63 characters, no dots. */
export function isDNS1123Label(value: string): string[] {
  // A value the pattern accepts is ASCII: its length is its byte length, and its only possible error the length.
  if (DNS1123_LABEL_RE.test(value)) return value.length > DNS1123_LABEL_MAX_LENGTH ? [maxLenError(DNS1123_LABEL_MAX_LENGTH)] : [];
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain that is not a valid label can only be wrong by its dots.
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** An RFC 1123 subdomain (most object names): `example.com`, at most 253 characters. */
export function isDNS1123Subdomain(value: string): string[] {
  // As in isDNS1123Label: a value the pattern accepts is ASCII.
  if (DNS1123_SUBDOMAIN_RE.test(value)) {
    return value.length > DNS1123_SUBDOMAIN_MAX_LENGTH ? [maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH)] : [];
  }
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/**
 * An RFC 1123 subdomain whose labels may also hold `_` and start with one.
 * Upstream's message names the plain subdomain regex, not the one it tests;
 * the message is kept as upstream's.
 */
export function isDNS1123SubdomainWithUnderscore(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_UNDERSCORE_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_UNDERSCORE_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** An RFC 1035 label (service names): like an RFC 1123 label but starting with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** A wildcard subdomain as RFC 1034 §4.3.3 allows: `*.example.com`. */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!WILDCARD_DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(WILDCARD_DNS1123_SUBDOMAIN_ERR, WILDCARD_DNS1123_SUBDOMAIN_FMT, '*.example.com'));
  }
  return errs;
}

/**
 * A subdomain of at least three dot-separated segments, with no trailing dot
 * (upstream's deprecated IsFullyQualifiedName, still used for some fields).
 */
export function isFullyQualifiedName(path: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) {
    return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  }
  return [];
}

/** A subdomain of at least two segments, each a valid label; one trailing dot is allowed. */
export function isFullyQualifiedDomainName(path: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [required(path)];
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  const errs = isDNS1123Subdomain(bare);
  if (errs.length > 0) return [invalid(path, bare, errs.join(','))];
  const labels = bare.split('.');
  if (labels.length < 2) {
    return [invalid(path, bare, 'should be a domain with at least two segments separated by dots')];
  }
  for (const label of labels) {
    const labelErrs = isDNS1123Label(label);
    if (labelErrs.length > 0) return [invalid(path, label, labelErrs.join(','))];
  }
  return [];
}

/** A domain-prefixed path such as `acme.io/foo`: a subdomain, `/`, then RFC 3986 path characters. */
export function isDomainPrefixedPath(path: FieldPath, value: string): FieldError[] {
  if (value.length === 0) return [required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) {
    return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((m) => invalid(path, host, m));
  if (!HTTP_PATH_RE.test(rest)) errs.push(invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

/** Names that may not be used as a path segment (the REST path and the storage key). */
export const NAME_MAY_NOT_BE: readonly string[] = ['.', '..'];

/** Substrings a name used as a path segment may not contain. */
export const NAME_MAY_NOT_CONTAIN: readonly string[] = ['/', '%'];

/** Whether `name` can be a path segment: not `.` or `..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of NAME_MAY_NOT_BE) if (name === bad) return [`may not be '${bad}'`];
  return isValidPathSegmentPrefix(name);
}

/** Whether `name` can begin a path segment (a suffix may yet make `.` or `..` valid). */
export function isValidPathSegmentPrefix(name: string): string[] {
  return NAME_MAY_NOT_CONTAIN.filter((bad) => name.includes(bad)).map((bad) => `may not contain '${bad}'`);
}

/**
 * Validates a name for one kind of object; `prefix` is true for a
 * generateName, to which a random suffix will be appended.
 */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

/** Path-segment names (RBAC roles and bindings): upstream's ValidatePathSegmentName. */
export const validatePathSegmentName: ValidateNameFunc = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

/**
 * A generateName may end in `-`, since a suffix follows: as upstream does,
 * replace the last two bytes of such a prefix by `a` before checking it.
 */
function maskTrailingDash(name: string): string {
  if (!name.endsWith('-')) return name;
  // The usual prefix (`web-`): an ASCII character before the dash, so the two bytes are two characters.
  if (name.length >= 2 && name.charCodeAt(name.length - 2) < 0x80) return `${name.slice(0, -2)}a`;
  if (byteLength(name) <= 1) return name;
  const body = [...name.slice(0, -1)];
  const last = body.pop() ?? '';
  // Go cuts one byte; a multi-byte character leaves its other bytes behind,
  // which fail every name format just as NUL does, with the same byte count.
  return `${body.join('')}${'\0'.repeat(byteLength(last) - 1)}a`;
}

/** Names that must be RFC 1123 subdomains (most kinds). */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Names that must be RFC 1123 labels (namespaces). */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** Names that must be RFC 1035 labels (services). */
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Namespace names, and the value of `metadata.namespace`: RFC 1123 labels. */
export const validateNamespaceName: ValidateNameFunc = nameIsDNSLabel;

/** Service names: RFC 1035 labels. */
export const validateServiceName: ValidateNameFunc = nameIsDNS1035Label;

/** Pod names: subdomains, as for most kinds (config maps, secrets, endpoints, volumes, deployments, custom resources). */
export const validatePodName: ValidateNameFunc = nameIsDNSSubdomain;

/** Node names: subdomains. */
export const validateNodeName: ValidateNameFunc = nameIsDNSSubdomain;

/** Service account names: subdomains. */
export const validateServiceAccountName: ValidateNameFunc = nameIsDNSSubdomain;

/** RBAC role and binding names: path segments, whether or not a suffix follows. */
export const validateRBACName: ValidateNameFunc = (name) => isValidPathSegmentName(name);
