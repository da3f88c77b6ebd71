/**
 * The --ca-cert-hash flag of `k8ts agent` (kubeadm's
 * --discovery-token-ca-cert-hash): `sha256:<64 hex digits>`, the SHA-256 of
 * the cluster CA's DER SubjectPublicKeyInfo. The joining node trusts the CA
 * of cluster-info only if its hash is one of these.
 */
import { caCertHash } from '../../machinery/bootstrap-token.js';

const HASH_PATTERN = /^sha256:([0-9a-f]{64})$/;

/** The canonical (lower-case) hash, or an Error naming the value. */
export function parseCaCertHash(value: string): string {
  const lower = value.trim().toLowerCase();
  if (!HASH_PATTERN.test(lower)) throw new Error(`invalid --ca-cert-hash "${value}": must be sha256:<64 hex digits> (as \`k8ts token create --print-join-command\` prints it)`);
  return lower;
}

/** Throws, naming both hashes, unless the CA's hash is one of `expected`. */
export function checkCaCertHash(caPem: string, expected: readonly string[]): void {
  const actual = caCertHash(caPem);
  if (!expected.includes(actual)) {
    throw new Error(
      `the cluster CA's public key hash ${actual} does not match --ca-cert-hash ${expected.join(', ')}: refusing to trust this server (check that --server is the cluster you meant, and copy the hash again from \`k8ts token create --print-join-command\`)`,
    );
  }
}
