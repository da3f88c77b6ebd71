/**
 * The `storageVersionHash` that discovery publishes for a stored resource:
 * upstream's hash of the group/version/kind the resource is stored as (base64
 * of the first 8 bytes of SHA-256 over `group/version/kind`). Clients such as
 * the storage version migrator compare it across servers; kubectl only passes
 * it through, but it must match upstream's value byte for byte.
 */
import { createHash } from 'node:crypto';

/**
 * Hash of a storage group/version/kind, as upstream computes it.
 *
 * @example storageVersionHash('', 'v1', 'Pod') // 'xPOwRZ+Yhw8='
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  const digest = createHash('sha256').update(`${group}/${version}/${kind}`).digest();
  return digest.subarray(0, 8).toString('base64');
}
