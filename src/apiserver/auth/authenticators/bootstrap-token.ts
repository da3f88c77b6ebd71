/**
 * Bootstrap tokens (--enable-bootstrap-token-auth), as upstream's
 * plugin/pkg/auth/authenticator/token/bootstrap: a bearer token
 * `<id>.<secret>` is valid while the Secret kube-system/bootstrap-token-<id>
 * exists, is not being deleted, has type bootstrap.kubernetes.io/token, holds
 * the same id and secret (compared in constant time), has not expired, is
 * marked usage-bootstrap-authentication=true, and names only well-formed extra
 * groups. The user is system:bootstrap:<id> in system:bootstrappers plus the
 * extra groups (sorted, without duplicates).
 *
 * The Secret is read live through the API server's watch cache on every
 * request (as the service-account authenticator reads service accounts), so a
 * deleted or expired token stops working at once. A token of the right shape
 * that fails any check gets no opinion, so the request is refused (401) unless
 * another authenticator knows the token.
 */
import {
  BOOTSTRAP_GROUP_PATTERN,
  BOOTSTRAP_TOKEN_KEYS,
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_USER_PREFIX,
  BOOTSTRAPPERS_GROUP,
  bootstrapSecretMatches,
  bootstrapTokenSecretName,
  parseBootstrapToken,
} from '../../../machinery/bootstrap-token.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { AuthenticationResult, TokenAuthenticator } from './interface.js';

export interface BootstrapTokenAuthenticatorOptions {
  /** Reads a Secret of kube-system (undefined when there is none). */
  readonly secret: (namespace: string, name: string) => Promise<KubeObject | undefined>;
  /** The current time (tests). */
  readonly now?: () => Date;
  /** Why a token of the right shape was refused (upstream logs it at V(3)); never sent to the client. */
  readonly onRefused?: (message: string) => void;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A data value of the Secret, decoded ('' when absent). */
function dataOf(secret: KubeObject, key: string): string {
  const data = secret.data as Record<string, unknown> | undefined;
  const value = data?.[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

/** Whether the token's expiration has passed; an unparseable one counts as passed, as upstream's. */
export function bootstrapTokenExpired(secret: KubeObject, now: Date): boolean {
  const expiration = dataOf(secret, BOOTSTRAP_TOKEN_KEYS.expiration);
  if (expiration === '') return false;
  const at = RFC3339.test(expiration) ? Date.parse(expiration) : Number.NaN;
  return Number.isNaN(at) || at - now.getTime() <= 0;
}

/** system:bootstrappers plus the Secret's auth-extra-groups, sorted; an error message for a bad group. */
export function bootstrapTokenGroups(secret: KubeObject): string[] | string {
  const groups = new Set([BOOTSTRAPPERS_GROUP]);
  const extra = dataOf(secret, BOOTSTRAP_TOKEN_KEYS.extraGroups);
  if (extra !== '') {
    for (const group of extra.split(',')) {
      if (!BOOTSTRAP_GROUP_PATTERN.test(group)) return `bootstrap group ${JSON.stringify(group)} is invalid (must match ${BOOTSTRAP_GROUP_PATTERN.source})`;
      groups.add(group);
    }
  }
  return [...groups].sort();
}

export function newBootstrapTokenAuthenticator(options: BootstrapTokenAuthenticatorOptions): TokenAuthenticator {
  const refused = (secret: KubeObject, why: string): undefined => {
    options.onRefused?.(`Bootstrap secret ${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''} matching bearer token ${why}`);
    return undefined;
  };
  return {
    async authenticateToken(token: string): Promise<AuthenticationResult | undefined> {
      const parsed = parseBootstrapToken(token);
      if (parsed === undefined) return undefined; // not a bootstrap token: another authenticator's
      const name = bootstrapTokenSecretName(parsed.id);
      const secret = await options.secret(BOOTSTRAP_TOKEN_NAMESPACE, name);
      if (secret === undefined) {
        options.onRefused?.(`No secret of name ${name} to match bootstrap bearer token`);
        return undefined;
      }
      if (secret.metadata.deletionTimestamp !== undefined) return refused(secret, 'is deleted and awaiting removal');
      if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.data === undefined || secret.data === null) {
        return refused(secret, `has invalid type, expected ${BOOTSTRAP_TOKEN_SECRET_TYPE}.`);
      }
      if (!bootstrapSecretMatches(parsed.secret, dataOf(secret, BOOTSTRAP_TOKEN_KEYS.secret))) {
        return refused(secret, `has invalid value for key ${BOOTSTRAP_TOKEN_KEYS.secret}.`);
      }
      if (dataOf(secret, BOOTSTRAP_TOKEN_KEYS.id) !== parsed.id) return refused(secret, `has invalid value for key ${BOOTSTRAP_TOKEN_KEYS.id}, expected ${parsed.id}.`);
      if (bootstrapTokenExpired(secret, options.now?.() ?? new Date())) return refused(secret, 'has expired.');
      if (dataOf(secret, BOOTSTRAP_TOKEN_KEYS.usageAuthentication) !== 'true') {
        return refused(secret, `not marked ${BOOTSTRAP_TOKEN_KEYS.usageAuthentication}=true.`);
      }
      const groups = bootstrapTokenGroups(secret);
      if (typeof groups === 'string') return refused(secret, `has invalid value for key ${BOOTSTRAP_TOKEN_KEYS.extraGroups}: ${groups}.`);
      return { user: { name: `${BOOTSTRAP_USER_PREFIX}${parsed.id}`, groups } };
    },
  };
}
