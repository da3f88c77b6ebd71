/**
 * Bootstrap tokens, as upstream's TLS bootstrap defines them: the short-lived
 * shared secret with which a new node (`k8ts agent --token`) proves it may ask
 * the cluster for a client certificate, and nothing else.
 *
 * A token is `<id>.<secret>` (6 and 16 characters of [a-z0-9]). It lives as a
 * Secret `kube-system/bootstrap-token-<id>` of type
 * `bootstrap.kubernetes.io/token`; the API server (--enable-bootstrap-token-auth)
 * authenticates it as user `system:bootstrap:<id>` in group
 * `system:bootstrappers` plus the Secret's `auth-extra-groups`. The joining
 * node checks the server's CA against `--ca-cert-hash sha256:<hex>`: the
 * SHA-256 of the CA certificate's DER SubjectPublicKeyInfo, as kubeadm prints it.
 */
import { createHash, randomInt, timingSafeEqual, X509Certificate } from 'node:crypto';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
/** The extra group k8ts gives the tokens it makes for joining nodes (kubeadm's is system:bootstrappers:kubeadm:default-node-token). */
export const DEFAULT_NODE_TOKEN_GROUP = 'system:bootstrappers:k8ts:default-node-token';
/** Extra groups must match this (upstream's BootstrapGroupPattern). */
export const BOOTSTRAP_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** The Secret's data keys (upstream's names). */
export const BOOTSTRAP_TOKEN_KEYS = {
  id: 'token-id',
  secret: 'token-secret',
  expiration: 'expiration',
  description: 'description',
  usageAuthentication: 'usage-bootstrap-authentication',
  usageSigning: 'usage-bootstrap-signing',
  extraGroups: 'auth-extra-groups',
} as const;

/** The public cluster information a joining node reads anonymously: kube-public/cluster-info, key `kubeconfig` (server URL and CA). */
export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const CLUSTER_INFO_KUBECONFIG_KEY = 'kubeconfig';

const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export interface BootstrapToken {
  readonly id: string;
  readonly secret: string;
}

/** The id and secret of a well-formed token; undefined for anything else. */
export function parseBootstrapToken(token: string): BootstrapToken | undefined {
  const match = TOKEN_PATTERN.exec(token);
  return match === null ? undefined : { id: match[1]!, secret: match[2]! };
}

export const formatBootstrapToken = (token: BootstrapToken): string => `${token.id}.${token.secret}`;

/** A new random token (crypto-strength). */
export function generateBootstrapToken(): BootstrapToken {
  const pick = (n: number): string => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return { id: pick(6), secret: pick(16) };
}

/** Whether a presented secret equals the stored one, in constant time. */
export function bootstrapSecretMatches(presented: string, stored: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const bootstrapTokenSecretName = (id: string): string => `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;

export interface BootstrapTokenSecretOptions {
  readonly token: BootstrapToken;
  /** When it stops working; undefined: never (upstream allows it, kubeadm's --ttl 0). */
  readonly expires?: Date;
  readonly description?: string;
  /** Default: [DEFAULT_NODE_TOKEN_GROUP]. */
  readonly extraGroups?: readonly string[];
  /** usage-bootstrap-signing (default true: cluster-info may be signed with it). */
  readonly signing?: boolean;
}

/** The Secret that makes a token valid, as `kubeadm token create` writes it (values base64 in `data`). */
export function bootstrapTokenSecret(options: BootstrapTokenSecretOptions): {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string };
  type: string;
  data: Record<string, string>;
} {
  const k = BOOTSTRAP_TOKEN_KEYS;
  const plain: Record<string, string> = {
    [k.id]: options.token.id,
    [k.secret]: options.token.secret,
    [k.usageAuthentication]: 'true',
    [k.usageSigning]: options.signing === false ? 'false' : 'true',
    [k.extraGroups]: (options.extraGroups ?? [DEFAULT_NODE_TOKEN_GROUP]).join(','),
  };
  if (options.expires !== undefined) plain[k.expiration] = options.expires.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (options.description !== undefined) plain[k.description] = options.description;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(plain)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: bootstrapTokenSecretName(options.token.id), namespace: BOOTSTRAP_TOKEN_NAMESPACE },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    data,
  };
}

/** `sha256:<hex>` of the certificate's DER SubjectPublicKeyInfo (kubeadm's --discovery-token-ca-cert-hash). */
export function caCertHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}
