/**
 * The bound service-account tokens of projected volumes, kept per pod and
 * renewed as upstream's token manager (pkg/kubelet/token) renews them: when
 * more than 80% of the token's life has passed (within 20% of its expiry),
 * or when it is older than 24 hours. If renewing fails while the old token
 * has not expired yet, the old one is kept (and the failure logged), so a
 * brief API outage does not fail a running pod's sync. Upstream adds up to
 * 10 s of random jitter to both limits; this cache does not, to stay
 * deterministic. Tokens are forgotten when their pod is torn down.
 */
import type { Logger } from '../../machinery/logger.js';
import type { Pod } from '../types.js';
import type { PodObjectSource } from './interface.js';

const MAX_TTL_MS = 24 * 60 * 60 * 1000;

export interface TokenRequestSpec {
  readonly audience?: string;
  readonly expirationSeconds: number;
}

interface CachedToken {
  readonly token: string;
  readonly expiresMs: number;
  readonly expirationSeconds: number;
}

export interface TokenCache {
  /** The pod's current token for this request, renewed when needed. */
  token(pod: Pod, request: TokenRequestSpec): Promise<string>;
  forget(podUid: string): void;
}

export function requiresRefresh(token: { readonly expiresMs: number; readonly expirationSeconds: number }, nowMs: number): boolean {
  const issuedMs = token.expiresMs - token.expirationSeconds * 1000;
  if (nowMs > issuedMs + MAX_TTL_MS) return true;
  return nowMs > token.expiresMs - Math.floor((token.expirationSeconds * 20) / 100) * 1000;
}

export function newTokenCache(options: { readonly source: PodObjectSource; readonly clock: () => number; readonly logger?: Logger | undefined }): TokenCache {
  const { source, clock, logger } = options;
  const byPod = new Map<string, Map<string, CachedToken>>();
  return {
    async token(pod, request) {
      const uid = pod.metadata.uid ?? '';
      const key = JSON.stringify([pod.spec?.serviceAccountName ?? '', request.audience ?? '', request.expirationSeconds]);
      const tokens = byPod.get(uid) ?? new Map<string, CachedToken>();
      byPod.set(uid, tokens);
      const cached = tokens.get(key);
      if (cached !== undefined && !requiresRefresh(cached, clock())) return cached.token;
      try {
        const fresh = await source.serviceAccountToken(pod, request);
        const expiresMs = Date.parse(fresh.expirationTimestamp);
        if (Number.isNaN(expiresMs)) throw new Error(`the token's expirationTimestamp ${JSON.stringify(fresh.expirationTimestamp)} is not a time`);
        tokens.set(key, { token: fresh.token, expiresMs, expirationSeconds: request.expirationSeconds });
        return fresh.token;
      } catch (e: unknown) {
        if (cached !== undefined && clock() < cached.expiresMs) {
          logger?.warn({ pod: `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`, err: e }, 'could not renew a service account token; keeping the current one until it expires');
          return cached.token;
        }
        throw e;
      }
    },
    forget(podUid) {
      byPod.delete(podUid);
    },
  };
}
