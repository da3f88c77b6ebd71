/**
 * Certificates for the cluster: a self-signed CA, the API server's serving
 * certificate and client certificates, made with @peculiar/x509 over node's
 * WebCrypto. Everything leaves this module as PEM: certificates as
 * "CERTIFICATE" blocks, private keys as PKCS#8 "PRIVATE KEY" blocks (node's tls
 * and Go's crypto/tls, hence kubectl, both read them).
 *
 * Keys are ECDSA P-256 by default (kubectl and node accept them); `keyType:
 * 'rsa-2048'` is there for clients that insist on RSA. A loaded CA may also be
 * RSA or P-384 (for instance one made by kubeadm).
 *
 * @example
 * const ca = await newCertificateAuthority();
 * const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
 * const admin = await issueClientCertificate(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'] });
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

x509.cryptoProvider.set(webcrypto);

/** The kinds of key this module generates. */
export type KeyType = 'ecdsa-p256' | 'rsa-2048';

/** A certificate and its private key, both PEM. */
export interface IssuedCertificate {
  /** The certificate, one "CERTIFICATE" PEM block. */
  readonly certPem: string;
  /** The private key, one PKCS#8 "PRIVATE KEY" PEM block. */
  readonly keyPem: string;
  /** The certificate, parsed by node. */
  readonly certificate: X509Certificate;
}

/** A CA that can sign certificates: its PEM files plus the imported signing key. */
export interface CertificateAuthority extends IssuedCertificate {
  /** The CA's private key, imported into WebCrypto for signing. */
  readonly signingKey: webcrypto.CryptoKey;
  /** The signature algorithm that goes with `signingKey` (hash included). */
  readonly signingAlgorithm: SigningAlgorithm;
}

/** Options common to every certificate this module makes. */
export interface CertificateOptions {
  /** Days from now until the certificate expires; a leaf never outlives its CA. */
  validityDays?: number;
  /** Key to generate (default `ecdsa-p256`). */
  keyType?: KeyType;
  /** The time the certificate is made (default: now). Tests use it to make old certificates. */
  now?: Date;
}

/** Options for {@link newCertificateAuthority}. */
export interface CertificateAuthorityOptions extends CertificateOptions {
  /** Subject common name (default `k8ts-ca`). */
  commonName?: string;
}

/** Options for {@link issueServingCertificate}. */
export interface ServingCertificateOptions extends CertificateOptions {
  /** Subject common name (default `kube-apiserver`); clients ignore it and check the SANs. */
  commonName?: string;
  /** DNS subject alternative names. */
  dnsNames: readonly string[];
  /** IP subject alternative names, IPv4 or IPv6. */
  ipAddresses: readonly string[];
}

/** Options for {@link issueClientCertificate}. */
export interface ClientCertificateOptions extends CertificateOptions {
  /** Subject common name: the user name the API server sees. */
  commonName: string;
  /** Subject organizations, one O attribute (one RDN) each: the user's groups, in order. */
  organizations?: readonly string[];
}

/** A WebCrypto signature algorithm with its hash. */
export type SigningAlgorithm =
  | { readonly name: 'ECDSA'; readonly hash: 'SHA-256' | 'SHA-384' }
  | { readonly name: 'RSASSA-PKCS1-v1_5'; readonly hash: 'SHA-256' };

/** Default lifetime of a CA: ten years. */
export const CA_VALIDITY_DAYS = 3650;
/** Default lifetime of a serving or client certificate: one year. */
export const LEAF_VALIDITY_DAYS = 365;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start a little in the past, so that a peer whose clock lags still accepts them. */
const BACKDATE_MS = 5 * 60 * 1000;

const GENERATE_PARAMS: Record<KeyType, webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams> = {
  'ecdsa-p256': { name: 'ECDSA', namedCurve: 'P-256' },
  'rsa-2048': { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
};

/**
 * Makes a self-signed CA: basicConstraints CA (critical), keyUsage
 * keyCertSign, cRLSign and digitalSignature (critical), a subject key
 * identifier, valid for ten years unless told otherwise.
 */
export async function newCertificateAuthority(options: CertificateAuthorityOptions = {}): Promise<CertificateAuthority> {
  const keyType = options.keyType ?? 'ecdsa-p256';
  const keys = await generateKeyPair(keyType);
  const signingAlgorithm = signingAlgorithmFor(KeyObject.from(keys.privateKey));
  const { notBefore, notAfter } = validity(options.now, options.validityDays ?? CA_VALIDITY_DAYS);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: newSerialNumber(),
    name: [{ CN: [options.commonName ?? 'k8ts-ca'] }],
    notBefore,
    notAfter,
    keys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const certPem = certificate.toString('pem') + '\n';
  return {
    certPem,
    keyPem: exportPrivateKey(keys.privateKey),
    certificate: new X509Certificate(certPem),
    signingKey: keys.privateKey,
    signingAlgorithm,
  };
}

/**
 * Loads a CA from its PEM certificate and private key (PKCS#8, or the older
 * "RSA PRIVATE KEY" / "EC PRIVATE KEY" forms). Throws if the certificate is
 * not a CA or the key does not belong to it.
 */
export async function loadCertificateAuthority(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const certificate = new X509Certificate(certPem);
  if (!certificate.ca) {
    throw new Error(`certificate "${certificate.subject}" is not a CA (basicConstraints CA is not set)`);
  }
  const keyObject = createPrivateKey(keyPem);
  if (!sameKey(createPublicKey(keyObject), certificate.publicKey)) {
    throw new Error(`private key does not match the public key of CA certificate "${certificate.subject}"`);
  }
  const signingAlgorithm = signingAlgorithmFor(keyObject);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const importParams: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams =
    signingAlgorithm.name === 'ECDSA'
      ? { name: 'ECDSA', namedCurve: signingAlgorithm.hash === 'SHA-384' ? 'P-384' : 'P-256' }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, importParams, false, ['sign']);
  return { certPem, keyPem, certificate, signingKey, signingAlgorithm };
}

/**
 * Issues a TLS serving certificate (extendedKeyUsage serverAuth) for the
 * given DNS names and IP addresses, signed by `ca`.
 */
export async function issueServingCertificate(
  ca: CertificateAuthority,
  options: ServingCertificateOptions,
): Promise<IssuedCertificate> {
  for (const ip of options.ipAddresses) {
    if (isIP(ip) === 0) throw new Error(`invalid IP address "${ip}" for a serving certificate`);
  }
  const names: x509.JsonGeneralNames = [
    ...options.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...options.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length === 0) throw new Error('a serving certificate needs at least one DNS name or IP address');
  return issue(ca, {
    ...options,
    subject: [{ CN: [options.commonName ?? 'kube-apiserver'] }],
    usage: x509.ExtendedKeyUsage.serverAuth,
    extraExtensions: [new x509.SubjectAlternativeNameExtension(names)],
  });
}

/**
 * Issues a client certificate (extendedKeyUsage clientAuth) whose subject is
 * CN=commonName followed by one O=group RDN per organization, as kubeadm and
 * upstream's certificate helpers write them: the API server reads the user
 * name from CN and the groups from the O attributes.
 */
export async function issueClientCertificate(
  ca: CertificateAuthority,
  options: ClientCertificateOptions,
): Promise<IssuedCertificate> {
  if (options.commonName === '') throw new Error('a client certificate needs a common name');
  const organizations = options.organizations ?? [];
  return issue(ca, {
    ...options,
    subject: [...organizations.map((o) => ({ O: [o] })), { CN: [options.commonName] }],
    usage: x509.ExtendedKeyUsage.clientAuth,
    extraExtensions: [],
  });
}

interface IssueOptions extends CertificateOptions {
  subject: x509.JsonName;
  usage: x509.ExtendedKeyUsage;
  extraExtensions: x509.Extension[];
}

async function issue(ca: CertificateAuthority, options: IssueOptions): Promise<IssuedCertificate> {
  const keyType = options.keyType ?? 'ecdsa-p256';
  const keys = await generateKeyPair(keyType);
  const { notBefore, notAfter: wanted } = validity(options.now, options.validityDays ?? LEAF_VALIDITY_DAYS);
  const caNotAfter = new Date(ca.certificate.validTo);
  const notAfter = wanted > caNotAfter ? caNotAfter : wanted;
  // Key encipherment only means something for RSA key transport; Go leaves it off for ECDSA.
  const keyUsage =
    keyType === 'rsa-2048'
      ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment
      : x509.KeyUsageFlags.digitalSignature;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(keyUsage, true),
    new x509.ExtendedKeyUsageExtension([options.usage], false),
    ...options.extraExtensions,
  ];
  const caCert = new x509.X509Certificate(ca.certPem);
  // As Go does: the authority key identifier is the CA's subject key identifier, if it has one.
  const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  if (caKeyId !== undefined) extensions.push(new x509.AuthorityKeyIdentifierExtension(caKeyId));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: newSerialNumber(),
    subject: options.subject,
    issuer: caCert.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: ca.signingAlgorithm,
    extensions,
  });
  const certPem = certificate.toString('pem') + '\n';
  return { certPem, keyPem: exportPrivateKey(keys.privateKey), certificate: new X509Certificate(certPem) };
}

async function generateKeyPair(keyType: KeyType): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(GENERATE_PARAMS[keyType], true, ['sign', 'verify']);
}

function exportPrivateKey(key: webcrypto.CryptoKey): string {
  const pem = KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' });
  return typeof pem === 'string' ? pem : pem.toString('utf8');
}

function signingAlgorithmFor(key: KeyObject): SigningAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return { name: 'ECDSA', hash: 'SHA-256' };
    if (curve === 'secp384r1') return { name: 'ECDSA', hash: 'SHA-384' };
    throw new Error(`unsupported CA key: EC curve "${curve ?? 'unknown'}" (use P-256 or P-384)`);
  }
  throw new Error(`unsupported CA key type "${type ?? 'unknown'}" (use RSA or ECDSA)`);
}

function sameKey(a: KeyObject, b: KeyObject): boolean {
  return a.export({ type: 'spki', format: 'der' }).equals(b.export({ type: 'spki', format: 'der' }));
}

function validity(now: Date | undefined, days: number): { notBefore: Date; notAfter: Date } {
  if (!(days > 0)) throw new Error(`invalid validity "${days}" days: must be positive`);
  const start = (now ?? new Date()).getTime();
  return { notBefore: new Date(start - BACKDATE_MS), notAfter: new Date(start + days * DAY_MS) };
}

/**
 * A random 128-bit serial number. The first byte is 0x40–0x7f: DER integers
 * are signed and minimal, and Go rejects negative serial numbers, while
 * @peculiar/x509 drops leading zero bytes.
 */
function newSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes.writeUInt8((bytes.readUInt8(0) & 0x3f) | 0x40, 0);
  return bytes.toString('hex');
}
