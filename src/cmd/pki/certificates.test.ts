import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext, type TLSSocket } from 'node:tls';
import { before, describe, it } from 'node:test';
import { describeCertificate, EXTENDED_KEY_USAGE } from './certificate-info.js';
import {
  CA_VALIDITY_DAYS,
  issueClientCertificate,
  issueServingCertificate,
  loadCertificateAuthority,
  newCertificateAuthority,
  type CertificateAuthority,
} from './certificates.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function keyUsages(certPem: string): number {
  const ext = new x509.X509Certificate(certPem).getExtension(x509.KeyUsagesExtension);
  assert.ok(ext, 'keyUsage extension present');
  assert.equal(ext.critical, true);
  return ext.usages;
}

function verifiesUnder(ca: CertificateAuthority, leafPem: string): boolean {
  const leaf = new X509Certificate(leafPem);
  return leaf.checkIssued(ca.certificate) && leaf.verify(ca.certificate.publicKey);
}

describe('newCertificateAuthority', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await newCertificateAuthority();
  });

  it('is a self-signed CA named k8ts-ca, valid for ten years', () => {
    const info = describeCertificate(ca.certPem);
    assert.equal(info.commonName, 'k8ts-ca');
    assert.equal(info.isCa, true);
    assert.equal(ca.certificate.ca, true);
    assert.ok(ca.certificate.checkIssued(ca.certificate));
    assert.ok(ca.certificate.verify(ca.certificate.publicKey));
    const days = (info.notAfter.getTime() - Date.now()) / DAY_MS;
    assert.ok(Math.abs(days - CA_VALIDITY_DAYS) < 1, `valid for ${days} days`);
    assert.ok(info.notBefore.getTime() <= Date.now());
  });

  it('has critical basicConstraints and keyCertSign, cRLSign, digitalSignature', () => {
    const basic = new x509.X509Certificate(ca.certPem).getExtension(x509.BasicConstraintsExtension);
    assert.equal(basic?.critical, true);
    assert.equal(
      keyUsages(ca.certPem),
      x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
    );
  });

  it('writes PEM with a PKCS#8 PRIVATE KEY block that node reads', () => {
    assert.match(ca.certPem, /^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/);
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/);
    const key = createPrivateKey(ca.keyPem);
    assert.equal(key.asymmetricKeyType, 'ec');
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('uses positive serial numbers that differ between certificates', async () => {
    const other = await newCertificateAuthority();
    for (const cert of [ca.certificate, other.certificate]) {
      assert.ok(Number.parseInt(cert.serialNumber.slice(0, 2), 16) < 0x80, `serial ${cert.serialNumber} is positive`);
      assert.equal(cert.serialNumber.length, 32);
    }
    assert.notEqual(ca.certificate.serialNumber, other.certificate.serialNumber);
  });
});

describe('issueServingCertificate', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await newCertificateAuthority();
  });

  it('is signed by the CA, for serverAuth only, with exactly the SANs asked', async () => {
    const serving = await issueServingCertificate(ca, {
      dnsNames: ['localhost', 'kubernetes.default.svc', 'my-host'],
      ipAddresses: ['127.0.0.1', '::1', '127.96.0.1'],
    });
    assert.ok(verifiesUnder(ca, serving.certPem));
    const info = describeCertificate(serving.certPem);
    assert.equal(info.commonName, 'kube-apiserver');
    assert.equal(info.isCa, false);
    assert.deepEqual(info.extendedKeyUsages, [EXTENDED_KEY_USAGE.serverAuth]);
    assert.deepEqual(info.dnsNames, ['localhost', 'kubernetes.default.svc', 'my-host']);
    assert.deepEqual(info.ipAddresses, ['127.0.0.1', '::1', '127.96.0.1']);
    assert.equal(keyUsages(serving.certPem), x509.KeyUsageFlags.digitalSignature);
    assert.equal(serving.certificate.checkHost('kubernetes.default.svc'), 'kubernetes.default.svc');
    assert.equal(serving.certificate.checkIP('127.96.0.1'), '127.96.0.1');
    assert.equal(serving.certificate.checkIP('127.0.0.2'), undefined);
  });

  it('carries an authority key identifier equal to the CA subject key identifier', async () => {
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: [] });
    const skid = new x509.X509Certificate(ca.certPem).getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    const akid = new x509.X509Certificate(serving.certPem).getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
    assert.ok(skid);
    assert.equal(akid, skid);
  });

  it('never outlives its CA', async () => {
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: [], validityDays: 100_000 });
    assert.equal(serving.certificate.validTo, ca.certificate.validTo);
  });

  it('rejects a malformed IP and an empty SAN list', async () => {
    await assert.rejects(issueServingCertificate(ca, { dnsNames: [], ipAddresses: ['127.0.0.300'] }), /invalid IP address "127.0.0.300"/);
    await assert.rejects(issueServingCertificate(ca, { dnsNames: [], ipAddresses: [] }), /at least one/);
  });

  it('makes keys node tls accepts', async () => {
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    assert.doesNotThrow(() => createSecureContext({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem }));
  });
});

describe('issueClientCertificate', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await newCertificateAuthority();
  });

  it('puts the user in CN and each group in its own O RDN, for clientAuth', async () => {
    const client = await issueClientCertificate(ca, {
      commonName: 'system:node:n1',
      organizations: ['system:nodes', 'team-a', 'team-b'],
    });
    assert.ok(verifiesUnder(ca, client.certPem));
    const info = describeCertificate(client.certPem);
    assert.equal(info.commonName, 'system:node:n1');
    assert.deepEqual(info.organizations, ['system:nodes', 'team-a', 'team-b']);
    assert.deepEqual(info.extendedKeyUsages, [EXTENDED_KEY_USAGE.clientAuth]);
    assert.equal(info.dnsNames.length + info.ipAddresses.length, 0);
    // One line per RDN: three separate O RDNs, then CN (Go's order: O before CN).
    assert.equal(client.certificate.subject, 'O=system:nodes\nO=team-a\nO=team-b\nCN=system:node:n1');
  });

  it('allows no groups, and honours validityDays', async () => {
    const client = await issueClientCertificate(ca, { commonName: 'system:kube-scheduler', validityDays: 2 });
    const info = describeCertificate(client.certPem);
    assert.deepEqual(info.organizations, []);
    assert.equal(client.certificate.subject, 'CN=system:kube-scheduler');
    const days = (info.notAfter.getTime() - Date.now()) / DAY_MS;
    assert.ok(Math.abs(days - 2) < 0.01, `valid for ${days} days`);
  });

  it('can make RSA 2048 keys, with keyEncipherment', async () => {
    const client = await issueClientCertificate(ca, { commonName: 'rsa-user', keyType: 'rsa-2048' });
    const key = createPrivateKey(client.keyPem);
    assert.equal(key.asymmetricKeyType, 'rsa');
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.match(client.keyPem, /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(keyUsages(client.certPem), x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    assert.ok(verifiesUnder(ca, client.certPem));
  });

  it('is presented over TLS, and node reads CN and every O from the peer certificate', async () => {
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const client = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['g1', 'g2'] });
    const server = https.createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => res.end(JSON.stringify((req.socket as TLSSocket).getPeerCertificate().subject)),
    );
    try {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/', ca: ca.certPem, cert: client.certPem, key: client.keyPem, agent: false }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      assert.deepEqual(JSON.parse(body), { O: ['g1', 'g2'], CN: 'alice' });
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});

describe('loadCertificateAuthority', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await newCertificateAuthority();
  });

  it('loads a CA from PEM that issues certificates the original CA certificate verifies', async () => {
    const loaded = await loadCertificateAuthority(ca.certPem, ca.keyPem);
    assert.equal(loaded.certPem, ca.certPem);
    const client = await issueClientCertificate(loaded, { commonName: 'bob' });
    assert.ok(verifiesUnder(ca, client.certPem));
  });

  it('accepts the older EC PRIVATE KEY form', async () => {
    const sec1 = createPrivateKey(ca.keyPem).export({ type: 'sec1', format: 'pem' }).toString();
    assert.match(sec1, /^-----BEGIN EC PRIVATE KEY-----/);
    const loaded = await loadCertificateAuthority(ca.certPem, sec1);
    assert.ok(verifiesUnder(ca, (await issueClientCertificate(loaded, { commonName: 'carol' })).certPem));
  });

  it('loads an RSA CA with an RSA PRIVATE KEY (as kubeadm writes) and signs with it', async () => {
    const rsa = await newCertificateAuthority({ keyType: 'rsa-2048' });
    const pkcs1 = createPrivateKey(rsa.keyPem).export({ type: 'pkcs1', format: 'pem' }).toString();
    const loaded = await loadCertificateAuthority(rsa.certPem, pkcs1);
    assert.equal(loaded.signingAlgorithm.name, 'RSASSA-PKCS1-v1_5');
    const serving = await issueServingCertificate(loaded, { dnsNames: ['localhost'], ipAddresses: [] });
    assert.ok(verifiesUnder(rsa, serving.certPem));
  });

  it('rejects a key that is not the CA key', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await assert.rejects(loadCertificateAuthority(ca.certPem, other), /does not match/);
  });

  it('rejects a certificate that is not a CA', async () => {
    const leaf = await issueClientCertificate(ca, { commonName: 'dave' });
    await assert.rejects(loadCertificateAuthority(leaf.certPem, leaf.keyPem), /is not a CA/);
  });
});
