/**
 * The cluster signing CA of csrsigning (--cluster-signing-cert-file and
 * --cluster-signing-key-file) and how it signs a request, as upstream's
 * authority package with its PermissiveSigningPolicy: subject and SANs from
 * the request, key usages and extended key usages from spec.usages, not a
 * CA, NotBefore backdated 5 minutes, NotAfter now + TTL (minus the backdate
 * for a TTL of 8 h or more), never past the CA's own NotAfter.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ParsedCertificateRequest } from '../csr.js';

x509.cryptoProvider.set(webcrypto);

/** Backdate of NotBefore, for peers whose clocks lag. */
export const BACKDATE_MS = 5 * 60_000;
/** Below this TTL the end is not backdated. */
export const SHORT_TTL_MS = 8 * 3600_000;
/** The least TTL a request's spec.expirationSeconds gets (twice the backdate). */
export const MIN_TTL_MS = 10 * 60_000;

export interface SigningAuthority {
  readonly certificate: x509.X509Certificate;
  readonly notAfter: Date;
  readonly signingKey: webcrypto.CryptoKey;
  readonly signingAlgorithm: webcrypto.EcdsaParams;
}

const KEY_USAGES: Readonly<Record<string, x509.KeyUsageFlags>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

/** Extended key usages by name, in Go's order of x509.ExtKeyUsage (the order they are written). */
const EXT_KEY_USAGES: readonly (readonly [string, string])[] = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** spec.usages as x509 key usage flags and extended key usage OIDs; throws on a name upstream does not know. */
export function keyUsagesOf(usages: readonly string[]): { readonly keyUsage: number; readonly extKeyUsages: readonly string[] } {
  let keyUsage = 0;
  const unrecognized: string[] = [];
  for (const usage of usages) {
    const flag = KEY_USAGES[usage];
    if (flag !== undefined) keyUsage |= flag;
    else if (!EXT_KEY_USAGES.some(([name]) => name === usage)) unrecognized.push(usage);
  }
  if (unrecognized.length > 0) throw new Error(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const extKeyUsages = [...new Set(EXT_KEY_USAGES.filter(([name]) => usages.includes(name)).map(([, oid]) => oid))];
  return { keyUsage, extKeyUsages };
}

/** The TTL of a certificate: the signing duration, or spec.expirationSeconds when shorter (at least 10 minutes). */
export function certificateTtlMs(signingDurationMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return signingDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > signingDurationMs) return signingDurationMs;
  return Math.max(requested, MIN_TTL_MS);
}

/** NotBefore and NotAfter of a certificate signed at `now` with `ttlMs`; throws when the CA has expired. */
export function validityPeriod(now: Date, ttlMs: number, caNotAfter: Date): { readonly notBefore: Date; readonly notAfter: Date } {
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  let notAfter = new Date(now.getTime() + (ttlMs < SHORT_TTL_MS ? ttlMs : ttlMs - BACKDATE_MS));
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter) throw new Error(`the signer has expired: NotAfter=${caNotAfter.toISOString()}`);
  if (now >= caNotAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${caNotAfter.toISOString()}`);
  return { notBefore, notAfter };
}

/** Load the signing CA from its PEM files; throws with the file's name when unreadable, unparsable, not a CA or not matching. */
export async function loadSigningAuthority(certFile: string, keyFile: string): Promise<SigningAuthority> {
  const read = async (path: string, what: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (e: unknown) {
      throw new Error(`error reading CA ${what} file "${path}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
  const certPem = await read(certFile, 'cert');
  const keyPem = await read(keyFile, 'key');
  let nodeCert: X509Certificate;
  let key: KeyObject;
  try {
    nodeCert = new X509Certificate(certPem);
  } catch (e: unknown) {
    throw new Error(`error parsing CA cert file "${certFile}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  try {
    key = createPrivateKey(keyPem);
  } catch (e: unknown) {
    throw new Error(`error parsing CA key file "${keyFile}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!nodeCert.ca) throw new Error(`CA cert file "${certFile}" holds no CA certificate (basicConstraints CA is not set)`);
  const spki = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' });
  if (!spki(createPublicKey(key)).equals(spki(nodeCert.publicKey))) throw new Error(`CA key file "${keyFile}" does not match the certificate of "${certFile}"`);
  const { importParams, signingAlgorithm } = algorithmsOf(key);
  const signingKey = await webcrypto.subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), importParams, false, ['sign']);
  return { certificate: new x509.X509Certificate(certPem), notAfter: new Date(nodeCert.validTo), signingKey, signingAlgorithm };
}

function algorithmsOf(key: KeyObject): { importParams: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams; signingAlgorithm: webcrypto.EcdsaParams } {
  if (key.asymmetricKeyType === 'rsa') return { importParams: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return { importParams: { name: 'ECDSA', namedCurve: 'P-256' }, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } };
    if (curve === 'secp384r1') return { importParams: { name: 'ECDSA', namedCurve: 'P-384' }, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-384' } };
    throw new Error(`unsupported CA key: EC curve "${curve ?? 'unknown'}" (use P-256 or P-384)`);
  }
  throw new Error(`unsupported CA key type "${key.asymmetricKeyType ?? 'unknown'}" (use RSA or ECDSA)`);
}

/** A random positive 128-bit serial (first byte 0x40–0x7f: positive and minimal in DER). */
function newSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes.writeUInt8((bytes.readUInt8(0) & 0x3f) | 0x40, 0);
  return bytes.toString('hex');
}

export interface SignOptions {
  readonly usages: readonly string[];
  readonly ttlMs: number;
  readonly now?: Date;
}

/** Sign a request: the certificate as one PEM block. Throws when its signature does not verify or a usage is unknown. */
export async function signCertificateRequest(ca: SigningAuthority, req: ParsedCertificateRequest, options: SignOptions): Promise<string> {
  if (!(await req.request.verify())) throw new Error('unable to verify certificate request signature');
  const { keyUsage, extKeyUsages } = keyUsagesOf(options.usages);
  const { notBefore, notAfter } = validityPeriod(options.now ?? new Date(), options.ttlMs, ca.notAfter);
  const names: x509.JsonGeneralName[] = [
    ...req.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...req.emailAddresses.map((value) => ({ type: 'email' as const, value })),
    ...req.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
    ...req.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extKeyUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension([...extKeyUsages], false));
  // As Go: the SAN extension is critical when the subject is empty.
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names, req.request.subjectName.toJSON().length === 0));
  const caKeyId = ca.certificate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  if (caKeyId !== undefined) extensions.push(new x509.AuthorityKeyIdentifierExtension(caKeyId));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: newSerialNumber(),
    subject: req.request.subjectName,
    issuer: ca.certificate.subjectName,
    notBefore,
    notAfter,
    publicKey: req.request.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: ca.signingAlgorithm,
    extensions,
  });
  return `${certificate.toString('pem')}\n`;
}
