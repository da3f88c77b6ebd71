/**
 * Service-account keys from PEM files: the signing key
 * (--service-account-signing-key-file, a private key) and the verifying keys
 * (--service-account-key-file, repeatable: public keys, or private keys whose
 * public halves are used). RSA keys sign RS256, ECDSA keys ES256/384/512, as
 * upstream. The key id (`kid`) is upstream's: the unpadded base64url SHA-256
 * of the public key's PKIX DER.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface SigningKey {
  readonly key: KeyObject;
  readonly algorithm: string;
  readonly keyId: string;
}

export interface VerifyingKey {
  readonly key: KeyObject;
  readonly keyId: string;
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new Error(`unsupported service-account key type ${key.asymmetricKeyType ?? 'unknown'}: use an RSA or ECDSA (P-256, P-384, P-521) key`);
}

export function signingKeyFromPem(pem: string, source: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e: unknown) {
    throw new Error(`the service-account signing key ${source} is not a private key in PEM form`, { cause: e });
  }
  return { key, algorithm: algorithmOf(key), keyId: keyIdOf(createPublicKey(key)) };
}

/** Every key in one PEM text (several blocks allowed). */
export function verifyingKeysFromPem(pem: string, source: string): VerifyingKey[] {
  const blocks = pem.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`the service-account key file ${source} holds no PEM key`);
  return blocks.map((block) => {
    let key: KeyObject;
    try {
      key = /PRIVATE KEY/.test(block) ? createPublicKey(createPrivateKey(block)) : createPublicKey(block);
    } catch (e: unknown) {
      throw new Error(`the service-account key file ${source} holds a PEM block that is not a key`, { cause: e });
    }
    algorithmOf(key);
    return { key, keyId: keyIdOf(key) };
  });
}

export function readSigningKey(path: string): SigningKey {
  return signingKeyFromPem(readPem(path, '--service-account-signing-key-file'), path);
}

export function readVerifyingKeys(paths: readonly string[]): VerifyingKey[] {
  return paths.flatMap((path) => verifyingKeysFromPem(readPem(path, '--service-account-key-file'), path));
}

function readPem(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e: unknown) {
    throw new Error(`reading ${path} (${flag}) failed: ${(e as Error).message}`, { cause: e });
  }
}
