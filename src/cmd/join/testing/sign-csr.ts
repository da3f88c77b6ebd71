/**
 * For unit tests: what a CSR signer does, in a few lines — issue a
 * certificate for the public key and subject of a PEM CSR, with the usage and
 * SANs it asks for, from a test CA.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import type { CertificateAuthority } from '../../pki/certificates.js';

x509.cryptoProvider.set(webcrypto);

export async function signCsr(ca: CertificateAuthority, csrPem: string, o: { readonly usage: 'client' | 'server'; readonly validityMs?: number }): Promise<string> {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  const san = csr.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const now = Date.now();
  const serial = randomBytes(16);
  serial.writeUInt8((serial.readUInt8(0) & 0x3f) | 0x40, 0);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: csr.subjectName,
    issuer: new x509.X509Certificate(ca.certPem).subjectName,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (o.validityMs ?? 3600_000)),
    publicKey: csr.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: ca.signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([o.usage === 'client' ? x509.ExtendedKeyUsage.clientAuth : x509.ExtendedKeyUsage.serverAuth]),
      ...(san !== undefined ? [san] : []),
    ],
  });
  return `${cert.toString('pem')}\n`;
}
