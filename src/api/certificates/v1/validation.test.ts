import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import { formatFieldError, type FieldError } from '../../../machinery/field-errors.js';
import { asBytes, makeCertificatePem, makeCsr } from './testing/make-csr.js';
import {
  KEY_USAGES,
  validateCertificateSigningRequestApprovalUpdate,
  validateCertificateSigningRequestCreate,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
  validateSignerName,
  type Csr,
} from './validation.js';
import { FieldPath } from '../../../machinery/field-errors.js';

const texts = (errors: FieldError[]): string[] => errors.map(formatFieldError);
const SUPPORTED = KEY_USAGES.map((u) => `"${u}"`).join(', ');

describe('CertificateSigningRequest validation', () => {
  let request: string;
  let certificate: string;
  let valid: Csr;
  const cond = (type: string, extra: Partial<CertificateSigningRequestCondition> = {}): CertificateSigningRequestCondition => ({ type, status: 'True', ...extra });
  const withStatus = (status: NonNullable<Csr['status']>): Csr => ({ ...valid, status });

  before(async () => {
    request = (await makeCsr({ commonName: 'alice' })).base64;
    certificate = asBytes(await makeCertificatePem('alice'));
    valid = { spec: { request, signerName: 'example.com/signer', usages: ['client auth', 'digital signature'] } };
  });

  it('accepts a well-formed request', () => {
    assert.deepEqual(validateCertificateSigningRequestCreate(valid), []);
    assert.deepEqual(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, expirationSeconds: 600 } }), []);
  });

  it('refuses a request that is not a CSR, naming the value', () => {
    const bad = asBytes('hello');
    assert.deepEqual(texts(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, request: bad } })), [
      `spec.request: Invalid value: "${bad}": PEM block type must be CERTIFICATE REQUEST`,
    ]);
    assert.deepEqual(texts(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, request: undefined as unknown as string } })), [
      'spec.request: Invalid value: null: PEM block type must be CERTIFICATE REQUEST',
    ]);
  });

  it('requires usages, known and unique', () => {
    assert.deepEqual(texts(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, usages: [] } })), ['spec.usages: Required value']);
    assert.deepEqual(texts(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, usages: ['client auth', 'flying', 'client auth'] } })), [
      `spec.usages[1]: Unsupported value: "flying": supported values: ${SUPPORTED}`,
      'spec.usages[2]: Duplicate value: "client auth"',
    ]);
  });

  it('refuses the legacy signer and a short expiration', () => {
    assert.deepEqual(texts(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, signerName: 'kubernetes.io/legacy-unknown' } })), [
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    assert.deepEqual(texts(validateCertificateSigningRequestCreate({ spec: { ...valid.spec, expirationSeconds: 599 } })), [
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
  });

  describe('signer names', () => {
    const check = (name: string): string[] => texts(validateSignerName(FieldPath.root('spec').child('signerName'), name));
    it('requires a domain and a path', () => {
      assert.deepEqual(check(''), ['spec.signerName: Required value']);
      assert.deepEqual(check('example.com'), ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
      assert.deepEqual(check('a/b/c'), ["spec.signerName: Invalid value: \"a/b/c\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
    });
    it('checks the domain labels and their count', () => {
      assert.deepEqual(check('example/signer'), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']);
      assert.deepEqual(check('Example.com/signer'), [
        'spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      ]);
      assert.deepEqual(check(`${'a'.repeat(250)}.com/s`).slice(0, 1), ['spec.signerName: Too long: may not be more than 253 bytes']);
    });
    it('checks the path labels and the whole length', () => {
      assert.match(check('example.com/Bad')[0] ?? '', /^spec\.signerName: Invalid value: "Bad": validating label "Bad": a lowercase RFC 1123 subdomain/);
      const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.com/${'c'.repeat(250)}.${'d'.repeat(250)}`;
      assert.ok(check(long).includes('spec.signerName: Too long: may not be more than 571 bytes'));
    });
  });

  describe('conditions', () => {
    it('require a type and a status allowed for the type', () => {
      assert.deepEqual(texts(validateCertificateSigningRequestCreate(withStatus({ conditions: [{ type: '', status: '' }] }))), [
        'status.conditions[0].type: Required value',
        'status.conditions[0].status: Required value',
      ]);
      assert.deepEqual(texts(validateCertificateSigningRequestCreate(withStatus({ conditions: [cond('Approved', { status: 'False' }), cond('Custom', { status: 'Maybe' })] }))), [
        'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
        'status.conditions[1].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      ]);
    });
    it('may not be both Approved and Denied, nor twice the same type', () => {
      assert.deepEqual(texts(validateCertificateSigningRequestCreate(withStatus({ conditions: [cond('Approved'), cond('Denied'), cond('Denied')] }))), [
        'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        'status.conditions[2].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        'status.conditions[2].type: Duplicate value: "Denied"',
      ]);
      assert.deepEqual(texts(validateCertificateSigningRequestCreate(withStatus({ conditions: [cond('Denied'), cond('Approved')] }))), [
        'status.conditions[1].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive',
      ]);
    });
  });

  it('checks status.certificate', () => {
    assert.deepEqual(texts(validateCertificateSigningRequestCreate(withStatus({ certificate: asBytes('junk') }))), [
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    ]);
  });

  describe('updates', () => {
    it('of the main resource may not add, change or remove approval conditions, nor set the certificate', () => {
      const approved = withStatus({ conditions: [cond('Approved', { reason: 'A' })] });
      assert.deepEqual(texts(validateCertificateSigningRequestUpdate(approved, valid)), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
      assert.deepEqual(texts(validateCertificateSigningRequestUpdate(valid, approved)), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
      const changed = texts(validateCertificateSigningRequestUpdate(withStatus({ conditions: [cond('Approved', { reason: 'B' })] }), approved));
      assert.equal(changed.length, 1);
      assert.ok(changed[0]!.startsWith('status.conditions: Forbidden: updates may not modify a condition of type "Approved"\n'));
      assert.deepEqual(texts(validateCertificateSigningRequestUpdate(withStatus({ certificate }), valid)), ['status.certificate: Forbidden: updates may not set certificate content']);
      assert.deepEqual(validateCertificateSigningRequestUpdate(approved, approved), []);
    });

    it('of /status may set the certificate once, and may not remove Failed', () => {
      assert.deepEqual(validateCertificateSigningRequestStatusUpdate(withStatus({ certificate }), valid), []);
      assert.deepEqual(texts(validateCertificateSigningRequestStatusUpdate(withStatus({ certificate: asBytes('junk') }), valid)), [
        'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
      ]);
      const other = asBytes(Buffer.from(certificate, 'base64').toString() + Buffer.from(certificate, 'base64').toString());
      assert.deepEqual(texts(validateCertificateSigningRequestStatusUpdate(withStatus({ certificate: other }), withStatus({ certificate }))), [
        'status.certificate: Forbidden: updates may not modify existing certificate content',
      ]);
      assert.deepEqual(texts(validateCertificateSigningRequestStatusUpdate(valid, withStatus({ conditions: [cond('Failed')] }))), [
        'status.conditions: Forbidden: updates may not remove a condition of type "Failed"',
      ]);
      assert.deepEqual(texts(validateCertificateSigningRequestStatusUpdate(withStatus({ conditions: [cond('Denied')] }), valid)), [
        'status.conditions: Forbidden: updates may not add a condition of type "Denied"',
      ]);
    });

    it('of /approval may add Approved or Denied, but not both, and not set the certificate', () => {
      assert.deepEqual(validateCertificateSigningRequestApprovalUpdate(withStatus({ conditions: [cond('Approved')] }), valid), []);
      assert.deepEqual(texts(validateCertificateSigningRequestApprovalUpdate(withStatus({ conditions: [cond('Approved'), cond('Denied')] }), valid)), [
        'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      ]);
      assert.deepEqual(texts(validateCertificateSigningRequestApprovalUpdate(withStatus({ certificate }), valid)), ['status.certificate: Forbidden: updates may not set certificate content']);
    });

    it('tolerate what the stored object already has', () => {
      const legacy: Csr = { spec: { ...valid.spec, signerName: 'kubernetes.io/legacy-unknown', usages: ['flying', 'flying'] }, status: { conditions: [cond('Approved'), cond('Denied'), cond('Denied'), { type: '', status: 'True' }], certificate: asBytes('junk') } };
      assert.deepEqual(validateCertificateSigningRequestUpdate(legacy, legacy), []);
    });
  });
});
