/**
 * Validation of certificates.k8s.io/v1 CertificateSigningRequests, as
 * upstream's pkg/apis/certificates/validation: the request must be a CSR
 * whose signature verifies, usages known and unique, the signer name a
 * domain-qualified path, expirationSeconds at least 600, conditions well
 * formed (Approved and Denied exclusive), status.certificate PEM
 * certificates. Updates may not remove Approved/Denied/Failed conditions;
 * only /approval may add or change Approved and Denied, only /status may set
 * the certificate, once. Object metadata is the generic store's to check.
 *
 * Problems that an already stored object has are tolerated on its updates
 * (upstream's compatibility options), so that old data never gets stuck.
 */
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import { duplicate, FieldPath, forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../../machinery/field-errors.js';
import { goQuote } from '../../../machinery/validation/go-text.js';
import { isDNS1123Label, isDNS1123Subdomain, DNS1123_LABEL_MAX_LENGTH, DNS1123_SUBDOMAIN_MAX_LENGTH } from '../../../machinery/validation/names.js';
import { certificateChainError, checkSignature, parseCertificateRequest } from './certificate-request.js';

export type Csr = Pick<CertificateSigningRequest, 'spec' | 'status'>;

export const APPROVED = 'Approved';
export const DENIED = 'Denied';
export const FAILED = 'Failed';
export const LEGACY_UNKNOWN_SIGNER_NAME = 'kubernetes.io/legacy-unknown';

/** Upstream's KeyUsage values. */
export const KEY_USAGES: readonly string[] = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];
const VALID_USAGES = new Set(KEY_USAGES);

/** Condition types whose status may only be True. */
const TRUE_ONLY_TYPES = new Set([APPROVED, DENIED, FAILED]);
const ALL_STATUSES = ['False', 'True', 'Unknown'];

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

const specPath = FieldPath.root('spec');
const conditionsPath = FieldPath.root('status').child('conditions');

const conditionsOf = (csr: Csr): CertificateSigningRequestCondition[] => csr.status?.conditions ?? [];
const usagesOf = (csr: Csr): string[] => csr.spec?.usages ?? [];

/** The PEM text of a base64 []byte field ('' when absent). */
export const bytesField = (value: string | undefined): string => (value === undefined ? '' : Buffer.from(value, 'base64').toString('latin1'));
const sameBytes = (a: string | undefined, b: string | undefined): boolean => bytesField(a) === bytesField(b);

export function validateCertificateSigningRequestCreate(csr: Csr): FieldError[] {
  return validate(csr, options(csr, undefined));
}

/** A write of the main resource: neither the approval conditions nor the certificate may change. */
export function validateCertificateSigningRequestUpdate(csr: Csr, old: Csr): FieldError[] {
  return validateUpdate(csr, old, options(csr, old));
}

/** A write of /status: the certificate may be set, once. */
export function validateCertificateSigningRequestStatusUpdate(csr: Csr, old: Csr): FieldError[] {
  return validateUpdate(csr, old, { ...options(csr, old), allowSettingCertificate: true });
}

/** A write of /approval: the Approved and Denied conditions may be added. */
export function validateCertificateSigningRequestApprovalUpdate(csr: Csr, old: Csr): FieldError[] {
  return validateUpdate(csr, old, { ...options(csr, old), allowSettingApprovalConditions: true });
}

function validate(csr: Csr, opts: Options): FieldError[] {
  const errors: FieldError[] = [];
  const spec = csr.spec ?? { request: '', signerName: '' };
  const requestError = requestProblem(spec.request);
  if (requestError !== undefined) errors.push(invalid(specPath.child('request'), spec.request === undefined ? null : spec.request, requestError));
  const usages = usagesOf(csr);
  if (usages.length === 0) errors.push(required(specPath.child('usages')));
  if (!opts.allowUnknownUsages) {
    usages.forEach((usage, i) => {
      if (!VALID_USAGES.has(usage)) errors.push(notSupported(specPath.child('usages').index(i), usage, KEY_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((usage, i) => {
      if (seen.has(usage)) errors.push(duplicate(specPath.child('usages').index(i), usage));
      seen.add(usage);
    });
  }
  const signerName = spec.signerName ?? '';
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER_NAME) {
    errors.push(invalid(specPath.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errors.push(...validateSignerName(specPath.child('signerName'), signerName));
  }
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null && spec.expirationSeconds < 600) {
    errors.push(invalid(specPath.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errors.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const problem = certificateChainError(bytesField(csr.status?.certificate));
    if (problem !== undefined) errors.push(invalid(FieldPath.root('status').child('certificate'), '<certificate data>', problem));
  }
  return errors;
}

/** Why spec.request is not an acceptable CSR, or undefined. */
function requestProblem(request: string | undefined): string | undefined {
  try {
    checkSignature(parseCertificateRequest(bytesField(request)));
    return undefined;
  } catch (e: unknown) {
    return e instanceof Error ? e.message : String(e);
  }
}

function validateConditions(csr: Csr, opts: Options): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let hasApproved = false;
  let hasDenied = false;
  conditionsOf(csr).forEach((c, i) => {
    const path = conditionsPath.index(i);
    const type = c.type ?? '';
    if (!opts.allowEmptyConditionType && type === '') errors.push(required(path.child('type')));
    const allowed = TRUE_ONLY_TYPES.has(type) ? ['True'] : ALL_STATUSES;
    const status = c.status ?? '';
    if (status === '') errors.push(required(path.child('status')));
    else if (!allowed.includes(status)) errors.push(notSupported(path.child('status'), status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === APPROVED) {
        hasApproved = true;
        if (hasDenied) errors.push(invalid(path.child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === DENIED) {
        hasDenied = true;
        if (hasApproved) errors.push(invalid(path.child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errors.push(duplicate(path.child('type'), type));
      seen.add(type);
    }
  });
  return errors;
}

function validateUpdate(csr: Csr, old: Csr, opts: Options): FieldError[] {
  const errors = validate(csr, opts);
  for (const type of [APPROVED, DENIED, FAILED]) {
    if (findConditions(csr, type).length < findConditions(old, type).length) {
      errors.push(forbidden(conditionsPath, `updates may not remove a condition of type ${goQuote(type)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of [APPROVED, DENIED]) {
      const before = findConditions(old, type);
      const after = findConditions(csr, type);
      if (after.length < before.length) continue; // refused above
      if (after.length > before.length) errors.push(forbidden(conditionsPath, `updates may not add a condition of type ${goQuote(type)}`));
      else if (JSON.stringify(before.map(canonicalCondition)) !== JSON.stringify(after.map(canonicalCondition))) {
        errors.push(forbidden(conditionsPath, `updates may not modify a condition of type ${goQuote(type)}\n${conditionDiff(before, after)}`));
      }
    }
  }
  if (!sameBytes(csr.status?.certificate, old.status?.certificate)) {
    if (!opts.allowSettingCertificate) errors.push(forbidden(FieldPath.root('status').child('certificate'), 'updates may not set certificate content'));
    else if (bytesField(old.status?.certificate).length > 0) errors.push(forbidden(FieldPath.root('status').child('certificate'), 'updates may not modify existing certificate content'));
  }
  return errors;
}

/** Upstream's getValidationOptions: what the stored object already gets away with, it keeps getting away with. */
function options(csr: Csr, old: Csr | undefined): Options {
  const oldConditions = old === undefined ? [] : conditionsOf(old);
  const types = oldConditions.map((c) => c.type ?? '');
  const oldUsages = old === undefined ? [] : usagesOf(old);
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: types.includes(APPROVED) && types.includes(DENIED),
    allowLegacySignerName: old?.spec?.signerName === LEGACY_UNKNOWN_SIGNER_NAME,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate:
      old !== undefined && (sameBytes(csr.status?.certificate, old.status?.certificate) || certificateChainError(bytesField(old.status?.certificate)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !VALID_USAGES.has(u)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

const findConditions = (csr: Csr, type: string): CertificateSigningRequestCondition[] => conditionsOf(csr).filter((c) => c.type === type);

/** A condition with its fields in one order and empty ones dropped (semantic equality). */
function canonicalCondition(c: CertificateSigningRequestCondition): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['type', 'status', 'reason', 'message', 'lastUpdateTime', 'lastTransitionTime'] as const) {
    const value = c[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** A short `-`/`+` diff of the conditions (upstream prints go-cmp's diff, whose layout is not stable). */
function conditionDiff(before: CertificateSigningRequestCondition[], after: CertificateSigningRequestCondition[]): string {
  const lines: string[] = [];
  before.forEach((c, i) => {
    const a = JSON.stringify(canonicalCondition(c));
    const b = JSON.stringify(canonicalCondition(after[i]!));
    if (a !== b) lines.push(`- ${a}`, `+ ${b}`);
  });
  return lines.join('\n');
}

/** Upstream's ValidateSignerName: `<domain with a dot>/<path of DNS subdomains>`, at most 571 characters. */
export function validateSignerName(path: FieldPath, signerName: string): FieldError[] {
  if (signerName.length === 0) return [required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const errors: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(tooLong(path, '', DNS1123_SUBDOMAIN_MAX_LENGTH));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = isDNS1123Label(label);
    if (problems.length > 0) {
      for (const p of problems) errors.push(invalid(path, domain, `validating label ${goQuote(label)}: ${p}`));
      break;
    }
  }
  if (domainLabels.length < 2) errors.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const problems = isDNS1123Subdomain(label);
    if (problems.length > 0) {
      for (const p of problems) errors.push(invalid(path, rest, `validating label ${goQuote(label)}: ${p}`));
      break;
    }
  }
  const maxLength = DNS1123_SUBDOMAIN_MAX_LENGTH + (DNS1123_SUBDOMAIN_MAX_LENGTH + DNS1123_LABEL_MAX_LENGTH + 1) + 1;
  if (signerName.length > maxLength) errors.push(tooLong(path, '', maxLength));
  return errors;
}
