/**
 * The cluster's service-account signing key pair, as kubeadm keeps it:
 * `pki/sa.key` (RSA 2048, PKCS#1 PEM, mode 0600) signs the tokens the API
 * server issues; `pki/sa.pub` (PKIX PEM) verifies them. Made on the first
 * start, kept as it is afterwards (replacing it would invalidate every token
 * ever issued). `sa.pub` missing beside an existing `sa.key` is derived from
 * it; `sa.pub` without `sa.key` is an error.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './write-file-atomic.js';

export interface ServiceAccountKeyPaths {
  /** `<pki>/sa.key`: --service-account-signing-key-file. */
  readonly privateKey: string;
  /** `<pki>/sa.pub`: --service-account-key-file. */
  readonly publicKey: string;
}

export async function ensureServiceAccountKey(pkiDir: string, written: string[] = []): Promise<ServiceAccountKeyPaths> {
  await mkdir(pkiDir, { recursive: true, mode: 0o700 });
  const privateKey = join(pkiDir, 'sa.key');
  const publicKey = join(pkiDir, 'sa.pub');
  const keyPem = await readOptional(privateKey);
  const pubPem = await readOptional(publicKey);
  if (keyPem === undefined) {
    if (pubPem !== undefined) {
      throw new Error(`service-account public key ${publicKey} exists but its private key ${privateKey} does not: restore the key or remove both`);
    }
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFileAtomic(privateKey, pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), { mode: 0o600 });
    await writeFileAtomic(publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(), { mode: 0o644 });
    written.push(privateKey, publicKey);
    return { privateKey, publicKey };
  }
  let derived: string;
  try {
    derived = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'pem' }).toString();
  } catch (e: unknown) {
    throw new Error(`the service-account key ${privateKey} is not a private key in PEM form`, { cause: e });
  }
  if (pubPem === undefined) {
    await writeFileAtomic(publicKey, derived, { mode: 0o644 });
    written.push(publicKey);
  }
  return { privateKey, publicKey };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e: unknown) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return undefined;
    throw new Error(`reading ${path} failed`, { cause: e });
  }
}
