/**
 * Certificate requests and certificates for tests: a fresh key pair, a PKCS#10
 * request with the subject and subjectAltNames asked for, and its PEM and the
 * base64 form the API's []byte fields take.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto);

export interface CsrOptions {
  readonly commonName: string;
  readonly organizations?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly emails?: readonly string[];
  readonly uris?: readonly string[];
  /** Default ECDSA P-256. */
  readonly keyType?: 'ecdsa' | 'rsa' | 'ed25519';
}

export interface TestCsr {
  readonly pem: string;
  /** spec.request as JSON carries it. */
  readonly base64: string;
  readonly keys: webcrypto.CryptoKeyPair;
}

const ALGORITHMS = {
  ecdsa: { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' },
  rsa: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  ed25519: { name: 'Ed25519' },
} as const;

const escape = (v: string): string => v.replace(/([,+"\\<>;=])/g, '\\$1');

export async function makeCsr(options: CsrOptions): Promise<TestCsr> {
  const algorithm = ALGORITHMS[options.keyType ?? 'ecdsa'];
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const names = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(options.emails ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(options.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  const subject = [...(options.organizations ?? []).map((o) => `O=${escape(o)}`), `CN=${escape(options.commonName)}`].join(', ');
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: algorithm,
    ...(names.length > 0 ? { extensions: [new x509.SubjectAlternativeNameExtension(names)] } : {}),
  });
  const pem = csr.toString('pem');
  return { pem, base64: Buffer.from(pem).toString('base64'), keys };
}

/** A self-signed certificate, PEM (what a signer would put in status.certificate, for validation tests). */
export async function makeCertificatePem(commonName: string): Promise<string> {
  const algorithm = ALGORITHMS.ecdsa;
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${escape(commonName)}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    keys,
    signingAlgorithm: algorithm,
  });
  return cert.toString('pem');
}

/** A PEM block's text as the API's base64 []byte. */
export const asBytes = (text: string): string => Buffer.from(text).toString('base64');
