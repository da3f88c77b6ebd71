/**
 * Reading certificates back: what a PEM certificate says (subject, SANs,
 * usages, validity) and whether it belongs with a key or a CA. Used to decide
 * whether a certificate found on disk can be kept.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPublicKey, X509Certificate } from 'node:crypto';
import { isIP, SocketAddress } from 'node:net';

/** The parts of a certificate the PKI cares about. */
export interface CertificateInfo {
  /** Subject CN (empty if none). */
  readonly commonName: string;
  /** Subject O values, in order. */
  readonly organizations: readonly string[];
  /** DNS subject alternative names. */
  readonly dnsNames: readonly string[];
  /** IP subject alternative names, in canonical form (see {@link canonicalIp}). */
  readonly ipAddresses: readonly string[];
  /** Extended key usage OIDs, e.g. 1.3.6.1.5.5.7.3.1 for serverAuth. */
  readonly extendedKeyUsages: readonly string[];
  /** Whether basicConstraints says CA. */
  readonly isCa: boolean;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** Extended key usage OIDs. */
export const EXTENDED_KEY_USAGE = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** Reads a PEM certificate. Throws if it does not parse. */
export function describeCertificate(certPem: string): CertificateInfo {
  const cert = new x509.X509Certificate(certPem);
  const names = cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [];
  return {
    commonName: cert.subjectName.getField('CN')[0] ?? '',
    organizations: cert.subjectName.getField('O'),
    dnsNames: names.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === 'ip').map((n) => canonicalIp(n.value)),
    // Array.from: the library returns an Array subclass, which deepEqual would tell apart.
    extendedKeyUsages: Array.from(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [], String),
    isCa: cert.getExtension(x509.BasicConstraintsExtension)?.ca ?? false,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
  };
}

/**
 * The canonical text of an IP address (`0:0:0:0:0:0:0:1` → `::1`), so that
 * addresses compare as strings. Throws on anything that is not an IP.
 */
export function canonicalIp(ip: string): string {
  const family = isIP(ip);
  if (family === 0) throw new Error(`invalid IP address "${ip}"`);
  return new SocketAddress({ address: ip, family: family === 4 ? 'ipv4' : 'ipv6' }).address;
}

/** Whether `certPem` was signed by the CA certificate `caCertPem` (issuer name and signature). */
export function isIssuedBy(certPem: string, caCertPem: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caCertPem);
    // Node reads checkIssued the other way round: leaf.checkIssued(issuer).
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch (e: unknown) {
    return false;
  }
}

/** Whether the private key `keyPem` belongs to the certificate `certPem`; false if either does not parse. */
export function keyMatchesCertificate(certPem: string, keyPem: string): boolean {
  try {
    const fromKey = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
    const fromCert = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
    return fromKey.equals(fromCert);
  } catch (e: unknown) {
    return false;
  }
}
