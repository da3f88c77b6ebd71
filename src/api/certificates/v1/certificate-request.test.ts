import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { certificateChainError, checkSignature, parseCertificateRequest } from './certificate-request.js';
import { decodePem, encodePem } from './pem.js';
import { makeCertificatePem, makeCsr, type TestCsr } from './testing/make-csr.js';

const derOf = (pem: string): Buffer => decodePem(pem)!.block.bytes;

describe('certificate requests', () => {
  let ec: TestCsr;
  before(async () => {
    ec = await makeCsr({ commonName: 'system:node:a', organizations: ['system:nodes', 'other'], dnsNames: ['a.example'], ipAddresses: ['10.0.0.1'], emails: ['x@example.com'], uris: ['spiffe://a/b'] });
  });

  it('reads the subject and subjectAltNames of a request', () => {
    const parsed = parseCertificateRequest(ec.pem);
    assert.equal(parsed.commonName, 'system:node:a');
    assert.deepEqual(parsed.organizations, ['system:nodes', 'other']);
    assert.deepEqual(parsed.dnsNames, ['a.example']);
    assert.deepEqual(parsed.ipAddresses, ['10.0.0.1']);
    assert.deepEqual(parsed.emailAddresses, ['x@example.com']);
    assert.deepEqual(parsed.uris, ['spiffe://a/b']);
  });

  it('verifies ECDSA, RSA and Ed25519 signatures', async () => {
    for (const keyType of ['ecdsa', 'rsa', 'ed25519'] as const) {
      const csr = await makeCsr({ commonName: `k-${keyType}`, keyType });
      assert.doesNotThrow(() => checkSignature(parseCertificateRequest(csr.pem)), keyType);
    }
  });

  it('skips text before the block, as pem.Decode does', () => {
    assert.equal(parseCertificateRequest(`junk\n${ec.pem}`).commonName, 'system:node:a');
  });

  it('refuses anything but a CERTIFICATE REQUEST block', () => {
    assert.throws(() => parseCertificateRequest(''), { message: 'PEM block type must be CERTIFICATE REQUEST' });
    assert.throws(() => parseCertificateRequest('not pem'), { message: 'PEM block type must be CERTIFICATE REQUEST' });
    assert.throws(() => parseCertificateRequest(encodePem('CERTIFICATE', derOf(ec.pem))), { message: 'PEM block type must be CERTIFICATE REQUEST' });
    assert.throws(() => parseCertificateRequest('-----BEGIN CERTIFICATE REQUEST-----\n!!!\n-----END CERTIFICATE REQUEST-----\n'), {
      message: 'PEM block type must be CERTIFICATE REQUEST',
    });
  });

  it('refuses DER that is not a request', () => {
    assert.throws(() => parseCertificateRequest(encodePem('CERTIFICATE REQUEST', Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]))), {
      message: 'asn1: structure error: malformed certificate request',
    });
  });

  it('refuses a bad signature', async () => {
    const der = Buffer.from(derOf(ec.pem));
    der[der.length - 3] = der[der.length - 3]! ^ 0x01;
    assert.throws(() => checkSignature(parseCertificateRequest(encodePem('CERTIFICATE REQUEST', der))), { message: 'x509: ECDSA verification failure' });
    const rsa = await makeCsr({ commonName: 'r', keyType: 'rsa' });
    const rsaDer = Buffer.from(derOf(rsa.pem));
    rsaDer[rsaDer.length - 1] = rsaDer[rsaDer.length - 1]! ^ 0x01;
    assert.throws(() => checkSignature(parseCertificateRequest(encodePem('CERTIFICATE REQUEST', rsaDer))), { message: 'crypto/rsa: verification error' });
    const ed = await makeCsr({ commonName: 'e', keyType: 'ed25519' });
    const edDer = Buffer.from(derOf(ed.pem));
    edDer[edDer.length - 1] = edDer[edDer.length - 1]! ^ 0x01;
    assert.throws(() => checkSignature(parseCertificateRequest(encodePem('CERTIFICATE REQUEST', edDer))), { message: 'x509: Ed25519 verification failure' });
  });

  it('refuses a changed subject (the signature no longer matches)', () => {
    const der = Buffer.from(derOf(ec.pem));
    const at = der.indexOf(Buffer.from('system:node:a'));
    der[at + 12] = 'b'.charCodeAt(0);
    assert.throws(() => checkSignature(parseCertificateRequest(encodePem('CERTIFICATE REQUEST', der))), { message: 'x509: ECDSA verification failure' });
  });

  it('refuses an unknown signature algorithm', () => {
    const der = Buffer.from(derOf(ec.pem));
    // ecdsa-with-SHA256 (…04 03 02) becomes an OID nobody knows (…04 03 09).
    const at = der.indexOf(Buffer.from([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
    der[at + 7] = 0x09;
    assert.throws(() => checkSignature(parseCertificateRequest(encodePem('CERTIFICATE REQUEST', der))), { message: 'x509: cannot verify signature: algorithm unimplemented' });
  });

  it('refuses a signature algorithm of another key type', () => {
    const der = Buffer.from(derOf(ec.pem));
    // The algorithm becomes Ed25519's OID (06 03 2b 65 70), the rest of its bytes an OCTET STRING parameter.
    const at = der.indexOf(Buffer.from([0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
    Buffer.from([0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x03, 0x00, 0x00, 0x00]).copy(der, at);
    assert.throws(() => checkSignature(parseCertificateRequest(encodePem('CERTIFICATE REQUEST', der))), { message: 'x509: signature algorithm specifies an Ed25519 public key, but have public key of type *ecdsa.PublicKey' });
  });

  describe('status.certificate', () => {
    it('accepts nothing, or one or more certificates', async () => {
      const cert = await makeCertificatePem('a');
      assert.equal(certificateChainError(''), undefined);
      assert.equal(certificateChainError(cert), undefined);
      assert.equal(certificateChainError(cert + cert), undefined);
    });

    it('refuses text without a block, other blocks, headers and bad certificates', async () => {
      assert.equal(certificateChainError('hello'), 'must contain at least one CERTIFICATE PEM block');
      assert.equal(certificateChainError(ec.pem), 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"');
      const cert = await makeCertificatePem('a');
      const withHeader = cert.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n');
      assert.equal(certificateChainError(withHeader), 'no PEM block headers are permitted');
      assert.equal(certificateChainError(encodePem('CERTIFICATE', Buffer.alloc(0))), 'found CERTIFICATE PEM block containing 0 certificates');
      assert.equal(certificateChainError(encodePem('CERTIFICATE', Buffer.from([1, 2, 3]))), 'x509: malformed certificate');
    });
  });
});
