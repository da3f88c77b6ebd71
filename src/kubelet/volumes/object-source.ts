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
  const cache = new Map<string, Entry<unknown>>();

  function cached<T>(key: string, read: () => Promise<T>): Promise<T> {
    const at = now();
    const hit = cache.get(key);
    if (hit !== undefined && hit.expires > at) return hit.value as Promise<T>;
    const value = read();
    const entry: Entry<T> = { expires: at + ttl, value };
    cache.set(key, entry);
    value.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return value;
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
      const response = await client.resource(SERVICE_ACCOUNTS).createSubresource<unknown>(account, 'token', body, { namespace });
      const status = isPlainObject(response) && isPlainObject(response.status) ? response.status : {};
      const { token, expirationTimestamp } = status;
      if (typeof token !== 'string' || typeof expirationTimestamp !== 'string') {
        throw new Error(`the TokenRequest for serviceaccount ${namespace}/${account} returned no token`);
      }
      return { token, expirationTimestamp };
    },
  };
}
