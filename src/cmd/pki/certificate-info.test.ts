import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { canonicalIp, describeCertificate, EXTENDED_KEY_USAGE, isIssuedBy, keyMatchesCertificate } from './certificate-info.js';
import {
  issueClientCertificate,
  issueServingCertificate,
  newCertificateAuthority,
  type CertificateAuthority,
  type IssuedCertificate,
} from './certificates.js';

describe('certificate-info', () => {
  let ca: CertificateAuthority;
  let otherCa: CertificateAuthority;
  let serving: IssuedCertificate;
  before(async () => {
    ca = await newCertificateAuthority();
    otherCa = await newCertificateAuthority({ commonName: 'k8ts-ca' });
    serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['0:0:0:0:0:0:0:1', '10.0.0.1'] });
  });

  it('canonicalIp gives one spelling per address and rejects non-IPs', () => {
    assert.equal(canonicalIp('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(canonicalIp('FE80:0:0:0:0:0:1:2'), 'fe80::1:2');
    assert.equal(canonicalIp('127.0.0.1'), '127.0.0.1');
    assert.throws(() => canonicalIp('localhost'), /invalid IP address "localhost"/);
    assert.throws(() => canonicalIp('127.0.0.256'), /invalid IP address/);
  });

  it('describeCertificate reads SANs (IPs canonical), usages and CA flag', () => {
    const info = describeCertificate(serving.certPem);
    assert.deepEqual(info.dnsNames, ['localhost']);
    assert.deepEqual(info.ipAddresses, ['::1', '10.0.0.1']);
    assert.deepEqual(info.extendedKeyUsages, [EXTENDED_KEY_USAGE.serverAuth]);
    assert.equal(info.isCa, false);
    assert.equal(describeCertificate(ca.certPem).isCa, true);
    assert.throws(() => describeCertificate('not a certificate'));
  });

  it('isIssuedBy checks the signature, not only the issuer name', async () => {
    assert.equal(isIssuedBy(serving.certPem, ca.certPem), true);
    assert.equal(isIssuedBy(ca.certPem, serving.certPem), false);
    // Same subject name "k8ts-ca", different key: must not pass.
    assert.equal(isIssuedBy(serving.certPem, otherCa.certPem), false);
    assert.equal(isIssuedBy('garbage', ca.certPem), false);
  });

  it('keyMatchesCertificate pairs a key with its own certificate only', async () => {
    const client = await issueClientCertificate(ca, { commonName: 'x' });
    assert.equal(keyMatchesCertificate(serving.certPem, serving.keyPem), true);
    assert.equal(keyMatchesCertificate(serving.certPem, client.keyPem), false);
    assert.equal(keyMatchesCertificate(serving.certPem, 'garbage'), false);
  });
});
