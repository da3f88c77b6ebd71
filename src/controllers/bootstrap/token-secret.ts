/**
 * Reading a bootstrap-token Secret as upstream's bootstrap secret utilities
 * do: its data values, its expiration (RFC 3339; an unparsable one counts
 * as expired), and whether it may sign cluster-info.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import {
  BOOTSTRAP_TOKEN_KEYS,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
} from '../../machinery/bootstrap-token.js';
import type { KubeObject } from '../../machinery/meta.js';

export type SecretObject = Secret & KubeObject;

/** A data value of the Secret, decoded ('' when absent). */
export const secretData = (secret: SecretObject, key: string): string => {
  const value = secret.data?.[key];
  return value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8');
};

export const isBootstrapTokenSecret = (secret: SecretObject): boolean => secret.type === BOOTSTRAP_TOKEN_SECRET_TYPE;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The time left before the Secret's `expiration` (upstream's GetExpiration):
 * no expiration → { expired: false, ttlMs: undefined }; unparsable or past →
 * expired.
 */
export function tokenExpiration(secret: SecretObject, now: number): { readonly expired: boolean; readonly ttlMs?: number } {
  const value = secretData(secret, BOOTSTRAP_TOKEN_KEYS.expiration);
  if (value === '') return { expired: false };
  const at = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return { expired: true };
  const ttlMs = at - now;
  return ttlMs <= 0 ? { expired: true } : { expired: false, ttlMs };
}

const TOKEN_ID = /^[a-z0-9]{6}$/;

/** The token id and secret of a Secret that may sign cluster-info now (upstream's validateSecretForSigning), else undefined. */
export function signingToken(secret: SecretObject, now: number): { readonly id: string; readonly secret: string } | undefined {
  const name = secret.metadata.name ?? '';
  if (!isBootstrapTokenSecret(secret) || !name.startsWith(BOOTSTRAP_TOKEN_SECRET_PREFIX)) return undefined;
  const nameId = name.slice(BOOTSTRAP_TOKEN_SECRET_PREFIX.length);
  if (!TOKEN_ID.test(nameId)) return undefined;
  const id = secretData(secret, BOOTSTRAP_TOKEN_KEYS.id);
  if (id === '' || id !== nameId) return undefined;
  const tokenSecret = secretData(secret, BOOTSTRAP_TOKEN_KEYS.secret);
  if (tokenSecret === '') return undefined;
  if (tokenExpiration(secret, now).expired) return undefined;
  if (secretData(secret, BOOTSTRAP_TOKEN_KEYS.usageSigning) !== 'true') return undefined;
  return { id, secret: tokenSecret };
}
