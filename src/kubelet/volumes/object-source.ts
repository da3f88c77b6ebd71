/**
 * The API objects a pod's volumes and env read, over the REST client with the
 * kubelet's identity. ConfigMaps, Secrets and a namespace's Services are
 * cached for a few seconds (upstream's kubelet keeps a TTL cache or a watch
 * per object; a short cache gives the same "eventually follows the object"
 * contract), so that one sync of a pod with many containers and volumes
 * reads each object once; concurrent reads of one object share one request.
 * A 404 resolves undefined (and is cached like an object); other failures
 * reject and are not cached. Tokens are never cached here: the volume manager
 * keeps each until it needs refreshing.
 *
 * While the API server cannot answer (down, or stopped and holding requests
 * open), the last value read of an object is used after staleAfterMs, as
 * upstream's informer caches keep serving theirs: a crashed container is
 * restarted with the env and volume contents it had. Only an object never
 * read before fails (after readTimeoutMs).
 */
import type { Client } from '../../client/rest/interface.js';
import { CONFIG_MAPS, SECRETS, SERVICE_ACCOUNTS, SERVICES } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import { isPlainObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { ConfigMap, Pod, Secret, Service } from '../types.js';
import type { PodObjectSource } from './interface.js';

export interface ApiObjectSourceOptions {
  readonly client: Client;
  /** How long a read object (or its absence) is reused (default 2 s). */
  readonly cacheTtlMs?: number;
  /** How long one read (or token request) may take before it fails (default 10 s). */
  readonly readTimeoutMs?: number;
  /** How long a read of an object read before is waited for before its last copy is used instead (default 1 s). */
  readonly staleAfterMs?: number;
  /** Milliseconds since the epoch (tests pass a fake). */
  readonly clock?: () => number;
  readonly logger?: Logger;
}

interface Entry<T> {
  readonly expires: number;
  readonly value: Promise<T>;
}

export function newApiObjectSource(options: ApiObjectSourceOptions): PodObjectSource {
  const { client } = options;
  const ttl = options.cacheTtlMs ?? 2000;
  const now = options.clock ?? Date.now;
  const timeoutMs = options.readTimeoutMs ?? 10_000;
  const staleAfterMs = options.staleAfterMs ?? 1_000;
  const cache = new Map<string, Entry<unknown>>();
  /** The last value each key resolved to (404s included), for when the API server cannot answer. */
  const lastKnown = new Map<string, { value: unknown }>();

  function withTimeout<T>(what: string, read: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`reading ${what} from the API server timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([read, timeout]).finally(() => clearTimeout(timer));
  }

  /** Reads in flight, by key: concurrent reads of one object share one request. */
  const reading = new Map<string, Promise<unknown>>();

  /** `fresh` if it settles within staleAfterMs, else (or if it fails) the last copy; the read goes on and refreshes the cache. */
  function freshOrLast<T>(key: string, fresh: Promise<T>, last: T): Promise<T> {
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => {
        options.logger?.debug({ object: key }, 'the API server is slow to answer: using the last known copy');
        resolve(last);
      }, staleAfterMs);
      fresh.then(
        (value) => (clearTimeout(timer), resolve(value)),
        (e: unknown) => {
          clearTimeout(timer);
          options.logger?.debug({ object: key, err: e instanceof Error ? e.message : String(e) }, 'using the last known copy');
          resolve(last);
        },
      );
    });
  }

  function cached<T>(key: string, read: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit !== undefined && hit.expires > now()) return hit.value as Promise<T>;
    let fresh = reading.get(key) as Promise<T> | undefined;
    if (fresh === undefined) {
      fresh = withTimeout(key, read()).then((value) => {
        lastKnown.set(key, { value });
        cache.set(key, { expires: now() + ttl, value: Promise.resolve(value) });
        return value;
      });
      reading.set(key, fresh);
      const forget = (): void => void reading.delete(key);
      fresh.then(forget, forget);
    }
    const last = lastKnown.get(key);
    return last === undefined ? fresh : freshOrLast(key, fresh, last.value as T);
  }

  async function getOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  return {
    configMap: (namespace, name) =>
      cached(`configmaps/${namespace}/${name}`, () => getOrUndefined(() => client.resource<ConfigMap>(CONFIG_MAPS).get(name, { namespace }))),
    secret: (namespace, name) => cached(`secrets/${namespace}/${name}`, () => getOrUndefined(() => client.resource<Secret>(SECRETS).get(name, { namespace }))),
    services: (namespace) => cached(`services/${namespace}`, async () => (await client.resource<Service>(SERVICES).list({ namespace })).items),
    async serviceAccountToken(pod: Pod, request) {
      const namespace = pod.metadata.namespace ?? '';
      const account = pod.spec?.serviceAccountName ?? pod.spec?.serviceAccount ?? 'default';
      const body = {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: { name: account, namespace },
        spec: {
          ...(request.audience !== undefined && request.audience !== '' ? { audiences: [request.audience] } : {}),
          expirationSeconds: request.expirationSeconds,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
        },
      };
      const response = await withTimeout(`a token for serviceaccount ${namespace}/${account}`, client.resource(SERVICE_ACCOUNTS).createSubresource<unknown>(account, 'token', body, { namespace }));
      const status = isPlainObject(response) && isPlainObject(response.status) ? response.status : {};
      const { token, expirationTimestamp } = status;
      if (typeof token !== 'string' || typeof expirationTimestamp !== 'string') {
        throw new Error(`the TokenRequest for serviceaccount ${namespace}/${account} returned no token`);
      }
      return { token, expirationTimestamp };
    },
  };
}
