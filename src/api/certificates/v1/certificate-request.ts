/**
 * A PKCS#10 certificate signing request as the API server checks it
 * (upstream's certificates.ParseCSR and x509's CheckSignature): the first PEM
 * block must be a "CERTIFICATE REQUEST", its DER must parse, and its signature
 * must verify with its own public key. Parsing uses @peculiar/x509; the
 * signature is checked synchronously with node:crypto, since validation never
 * awaits. The error texts are Go's where Go's are stable.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { goQuote } from '../../../machinery/validation/go-text.js';
import { signedParts, type SignedParts } from './der.js';
import { decodePem } from './pem.js';

export const CERTIFICATE_REQUEST_BLOCK = 'CERTIFICATE REQUEST';
export const CERTIFICATE_BLOCK = 'CERTIFICATE';

/** What signers and approvers look at in a request (Go's x509.CertificateRequest fields). */
export interface ParsedCertificateRequest {
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  /** The DER SubjectPublicKeyInfo. */
  readonly publicKey: Buffer;
  /** The request as @peculiar/x509 parsed it. */
  readonly request: x509.Pkcs10CertificateRequest;
  /** The DER request. */
  readonly der: Buffer;
}

export class CertificateRequestError extends Error {}

/** Signature algorithms by OID: the hash node:crypto takes (null: none, as Ed25519) and the key family. */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, { hash: string | null; key: 'ec' | 'rsa' | 'ed25519' }>> = {
  '1.2.840.10045.4.1': { hash: 'sha1', key: 'ec' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', key: 'ec' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', key: 'ec' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', key: 'ec' },
  '1.2.840.113549.1.1.5': { hash: 'sha1', key: 'rsa' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', key: 'rsa' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', key: 'rsa' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', key: 'rsa' },
  '1.3.101.112': { hash: null, key: 'ed25519' },
};

const VERIFICATION_FAILURE: Record<'ec' | 'rsa' | 'ed25519', string> = {
  ec: 'x509: ECDSA verification failure',
  rsa: 'crypto/rsa: verification error',
  ed25519: 'x509: Ed25519 verification failure',
};

/** Parse a PEM CSR (upstream's ParseCSR); throws CertificateRequestError with upstream's message. */
export function parseCertificateRequest(pem: string): ParsedCertificateRequest {
  const decoded = decodePem(pem);
  if (decoded === undefined || decoded.block.type !== CERTIFICATE_REQUEST_BLOCK) {
    throw new CertificateRequestError('PEM block type must be CERTIFICATE REQUEST');
  }
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(decoded.block.bytes);
  } catch (e: unknown) {
    throw new CertificateRequestError('asn1: structure error: malformed certificate request', { cause: e });
  }
  const names = sanNames(request);
  const subject = request.subjectName;
  const commonNames = subject.getField('CN');
  return {
    commonName: commonNames.length > 0 ? commonNames[commonNames.length - 1]! : '',
    organizations: subject.getField('O'),
    dnsNames: names.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === 'ip').map((n) => n.value),
    emailAddresses: names.filter((n) => n.type === 'email').map((n) => n.value),
    uris: names.filter((n) => n.type === 'url').map((n) => n.value),
    publicKey: Buffer.from(request.publicKey.rawData),
    request,
    der: decoded.block.bytes,
  };
}

function sanNames(request: x509.Pkcs10CertificateRequest): { type: string; value: string }[] {
  const extension = request.extensions.find((e) => e.type === '2.5.29.17');
  if (!(extension instanceof x509.SubjectAlternativeNameExtension)) return [];
  return extension.names.items.map((n) => ({ type: n.type, value: n.value }));
}

/** Check the request's self-signature (x509's CheckSignature); throws CertificateRequestError. */
export function checkSignature(parsed: ParsedCertificateRequest): void {
  let parts: SignedParts;
  try {
    parts = signedParts(parsed.der);
  } catch (e: unknown) {
    throw new CertificateRequestError('asn1: structure error: malformed certificate request', { cause: e });
  }
  const algorithm = SIGNATURE_ALGORITHMS[parts.algorithm];
  if (algorithm === undefined) throw new CertificateRequestError('x509: cannot verify signature: algorithm unimplemented');
  let ok = false;
  try {
    const key = createPublicKey({ key: parsed.publicKey, format: 'der', type: 'spki' });
    const family = key.asymmetricKeyType === 'rsa' ? 'rsa' : key.asymmetricKeyType === 'ec' ? 'ec' : key.asymmetricKeyType === 'ed25519' ? 'ed25519' : undefined;
    if (family !== algorithm.key) throw new CertificateRequestError('x509: signature algorithm specifies an ' + (algorithm.key === 'ec' ? 'ECDSA' : algorithm.key === 'rsa' ? 'RSA' : 'Ed25519') + ' public key, but have public key of type ' + goKeyType(family));
    ok = verify(algorithm.hash, parts.tbs, family === 'ec' ? { key, dsaEncoding: 'der' } : key, parts.signature);
  } catch (e: unknown) {
    if (e instanceof CertificateRequestError) throw e;
    ok = false;
  }
  if (!ok) throw new CertificateRequestError(VERIFICATION_FAILURE[algorithm.key]);
}

function goKeyType(family: string | undefined): string {
  switch (family) {
    case 'rsa':
      return '*rsa.PublicKey';
    case 'ec':
      return '*ecdsa.PublicKey';
    case 'ed25519':
      return 'ed25519.PublicKey';
    default:
      return '<nil>';
  }
}

/**
 * status.certificate (upstream's validateCertificate): empty, or one or more
 * "CERTIFICATE" blocks without headers, each holding a certificate. Returns
 * the error message, or undefined when valid.
 */
export function certificateChainError(pem: string): string | undefined {
  if (pem.length === 0) return undefined;
  let rest = pem;
  let blocks = 0;
  for (;;) {
    const decoded = decodePem(rest);
    if (decoded === undefined) break;
    const { block } = decoded;
    if (block.type !== CERTIFICATE_BLOCK) return `only CERTIFICATE PEM blocks are allowed, found ${goQuote(block.type)}`;
    if (Object.keys(block.headers).length !== 0) return 'no PEM block headers are permitted';
    blocks++;
    if (block.bytes.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
    try {
      new X509Certificate(block.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
    rest = decoded.rest;
  }
  if (blocks === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}
