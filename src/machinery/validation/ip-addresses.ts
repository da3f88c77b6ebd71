/**
 * IP address and CIDR fields, validated and warned about as upstream does
 * (k8s.io/apimachinery pkg/util/validation/ip.go). New fields use the strict
 * validators; fields that predate strict validation use the legacy ones, which
 * accept non-canonical forms (and, unless `strict`, leading zeros and
 * IPv4-mapped IPv6), and warn about them instead.
 */

import { invalid, type FieldError, type FieldPath } from '../field-errors.js';
import { goQuote } from './go-text.js';
import {
  formatAddr,
  formatIPBytes,
  formatNetwork,
  hasHostBits,
  is4In6,
  isV4Mapped,
  parseCIDR,
  parseIP,
  type ParsedCIDR,
  type ParsedIP,
} from './ip-parse.js';

const NOT_AN_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const NOT_AN_INTERFACE_ADDRESS = 'must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)';

const canonicalForm = (canonical: string): string => `must be in canonical form (${goQuote(canonical)})`;

interface Checked<T> {
  readonly parsed?: T;
  readonly errors: FieldError[];
}

function checkIP(path: FieldPath, value: string, strict: boolean): Checked<ParsedIP> {
  const parsed = parseIP(value);
  if (parsed === undefined) return { errors: [invalid(path, value, NOT_AN_IP)] };
  const errors: FieldError[] = [];
  if (strict) {
    if (!parsed.strict) errors.push(invalid(path, value, 'must not have leading 0s'));
    else if (is4In6(parsed)) errors.push(invalid(path, value, 'must not be an IPv4-mapped IPv6 address'));
  }
  return { parsed, errors };
}

function checkCIDR(path: FieldPath, value: string, strict: boolean): Checked<ParsedCIDR> {
  const parsed = parseCIDR(value);
  if (parsed === undefined) return { errors: [invalid(path, value, NOT_A_CIDR)] };
  const errors: FieldError[] = [];
  if (strict) {
    if (!parsed.strict) errors.push(invalid(path, value, 'must not have leading 0s in IP or prefix length'));
    else if (is4In6(parsed.ip)) errors.push(invalid(path, value, 'must not have an IPv4-mapped IPv6 address'));
    else if (hasHostBits(parsed)) errors.push(invalid(path, value, 'must not have bits set beyond the prefix length'));
  }
  return { parsed, errors };
}

/** An IP address in canonical form: `10.9.8.7`, `2001:db8::1`; no leading zeros, no IPv4-mapped IPv6. */
export function isValidIP(path: FieldPath, value: string): FieldError[] {
  const { parsed, errors } = checkIP(path, value, true);
  if (parsed === undefined || errors.length > 0) return errors;
  const canonical = formatIPBytes(parsed.bytes);
  return value === canonical ? [] : [invalid(path, value, canonicalForm(canonical))];
}

/**
 * An IP address in a field that predates strict validation: any form upstream
 * has ever accepted. `strict` (upstream's StrictIPCIDRValidation gate) rejects
 * leading zeros and IPv4-mapped IPv6; a value in `validOld` (the old object's,
 * on update) is always accepted.
 */
export function isValidIPForLegacyField(
  path: FieldPath,
  value: string,
  options: { strict: boolean; validOld?: readonly string[] },
): FieldError[] {
  if (options.validOld?.includes(value)) return [];
  return checkIP(path, value, options.strict).errors;
}

/** Warnings for an IP accepted by isValidIPForLegacyField in a form upstream discourages. */
export function warningsForIP(path: FieldPath, value: string): string[] {
  const parsed = parseIP(value);
  if (parsed === undefined) return [];
  if (!parsed.strict || is4In6(parsed)) {
    return [
      `${path}: non-standard IP address ${goQuote(value)} will be considered invalid in a future Kubernetes release: use ${goQuote(formatIPBytes(parsed.bytes))}`,
    ];
  }
  const addr = formatAddr(parsed);
  if (!parsed.v4Literal && addr !== value) {
    return [`${path}: IPv6 address ${goQuote(value)} should be in RFC 5952 canonical format (${goQuote(addr)})`];
  }
  return [];
}

/** A subnet in canonical form with no bits set past the prefix: `10.9.8.0/24`, `2001:db8::/64`. */
export function isValidCIDR(path: FieldPath, value: string): FieldError[] {
  const { parsed, errors } = checkCIDR(path, value, true);
  if (parsed === undefined || errors.length > 0) return errors;
  const canonical = formatNetwork(parsed);
  return value === canonical ? [] : [invalid(path, value, canonicalForm(canonical))];
}

/** A CIDR in a field that predates strict validation; `strict` and `validOld` as for isValidIPForLegacyField. */
export function isValidCIDRForLegacyField(
  path: FieldPath,
  value: string,
  options: { strict: boolean; validOld?: readonly string[] },
): FieldError[] {
  if (options.validOld?.includes(value)) return [];
  return checkCIDR(path, value, options.strict).errors;
}

/** Warnings for a CIDR accepted by isValidCIDRForLegacyField in a form upstream discourages. */
export function warningsForCIDR(path: FieldPath, value: string): string[] {
  const parsed = parseCIDR(value);
  if (parsed === undefined) return [];
  const warnings: string[] = [];
  const network = formatNetwork(parsed);
  if (hasHostBits(parsed)) {
    const single = `${formatIPBytes(parsed.ip.bytes)}/${parsed.ip.v4Literal ? 32 : 128}`;
    warnings.push(
      `${path}: CIDR value ${goQuote(value)} is ambiguous in this context (should be ${goQuote(network)} or ${goQuote(single)}?)`,
    );
  }
  if (!parsed.strict || is4In6(parsed.ip)) {
    warnings.push(
      `${path}: non-standard CIDR value ${goQuote(value)} will be considered invalid in a future Kubernetes release: use ${goQuote(network)}`,
    );
  }
  const prefix = `${formatAddr(parsed.ip)}/${parsed.bits}`;
  if (warnings.length === 0 && !parsed.ip.v4Literal && prefix !== value) {
    warnings.push(`${path}: IPv6 CIDR value ${goQuote(value)} should be in RFC 5952 canonical format (${goQuote(prefix)})`);
  }
  return warnings;
}

/** An interface address: a whole address and its subnet length, in canonical form: `192.168.1.5/24`. */
export function isValidInterfaceAddress(path: FieldPath, value: string): FieldError[] {
  const parsed = parseCIDR(value);
  if (parsed === undefined) return [invalid(path, value, NOT_AN_INTERFACE_ADDRESS)];
  let bits = parsed.bits;
  // Go counts an IPv4-mapped address's IPv6 mask from bit 96 (a prefix shorter than 96 goes negative, as upstream's does).
  if (!parsed.ip.v4Literal && isV4Mapped(parsed.ip.bytes) && bits > 32) bits -= 96;
  const canonical = `${formatIPBytes(parsed.ip.bytes)}/${bits}`;
  return value === canonical ? [] : [invalid(path, value, canonicalForm(canonical))];
}
