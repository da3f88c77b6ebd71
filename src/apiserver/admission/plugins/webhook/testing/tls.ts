/**
 * A throwaway CA and a serving certificate for 127.0.0.1 (and given DNS
 * names), for unit tests that run real HTTPS servers on loopback. (The
 * cluster's PKI lives in src/cmd/pki, which the API server may not import.)
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto);

export interface TestTLS {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

export async function newTestTLS(options: { dnsNames?: readonly string[]; commonName?: string } = {}): Promise<TestTLS> {
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + 86_400_000);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '4'),
    name: [{ CN: ['test-ca'] }],
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true)],
  });
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const names: x509.JsonGeneralNames = [{ type: 'ip', value: '127.0.0.1' }, ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value }))];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '4'),
    subject: [{ CN: [options.commonName ?? 'webhook'] }],
    issuer: ca.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(names),
    ],
  });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { caPem: ca.toString('pem') + '\n', certPem: cert.toString('pem') + '\n', keyPem };
}
