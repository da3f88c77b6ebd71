/**
 * projected (kubernetes.io~projected): several sources in one directory, as
 * upstream's plugin collects them (pkg/volume/projected): configMap and
 * secret (with items, optional), downwardAPI, and serviceAccountToken (a
 * bound token from the TokenRequest API, renewed by the token cache; written
 * 0600 when the pod has an fsGroup, as upstream before it changes ownership).
 * The API-access volume the ServiceAccount admission plugin adds
 * (kube-api-access-*: token, the kube-root-ca.crt ConfigMap's ca.crt and the
 * namespace) is just such a volume. Every source is tried; their errors are
 * reported together.
 */
import type { ProjectedVolumeSource, VolumeProjection } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../../types.js';
import type { FileProjection } from '../atomic-writer.js';
import type { PodObjectSource } from '../interface.js';
import type { ResourceList } from '../resource-values.js';
import type { TokenCache } from '../token-cache.js';
import { aggregateError } from './aggregate-error.js';
import { configMapPayload, DEFAULT_MODE } from './config-map.js';
import { downwardApiPayload } from './downward-api.js';
import { secretPayload } from './secret.js';

export const PROJECTED_PLUGIN = 'kubernetes.io~projected';

/** The API's default token life (1 hour). */
const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

export async function projectedPayload(options: {
  readonly pod: Pod;
  readonly source: ProjectedVolumeSource;
  readonly objects: PodObjectSource;
  readonly tokens: TokenCache;
  readonly allocatable: ResourceList | undefined;
}): Promise<Map<string, FileProjection>> {
  const { pod, objects } = options;
  const namespace = pod.metadata.namespace ?? '';
  const defaultMode = options.source.defaultMode ?? DEFAULT_MODE;
  // The sources are read at once (the token request and the ConfigMap read are each a round trip to the
  // API server); their files are merged in the sources' order, so a later source's file wins as before.
  const read = async (projection: VolumeProjection): Promise<ReadonlyMap<string, FileProjection>> => {
    if (projection.configMap !== undefined) {
      const { name = '', items, optional = false } = projection.configMap;
      const configMap = await objects.configMap(namespace, name);
      if (configMap === undefined && !optional) throw new Error(`configmap "${name}" not found`);
      return configMapPayload({ configMap, items, defaultMode, optional });
    }
    if (projection.secret !== undefined) {
      const { name = '', items, optional = false } = projection.secret;
      const secret = await objects.secret(namespace, name);
      if (secret === undefined && !optional) throw new Error(`secret "${name}" not found`);
      return secretPayload({ secret, items, defaultMode, optional });
    }
    if (projection.downwardAPI !== undefined) {
      return downwardApiPayload({ pod, items: projection.downwardAPI.items, defaultMode, allocatable: options.allocatable });
    }
    if (projection.serviceAccountToken !== undefined) {
      const { audience, expirationSeconds = DEFAULT_TOKEN_EXPIRATION_SECONDS, path } = projection.serviceAccountToken;
      const token = await options.tokens.token(pod, { ...(audience !== undefined && audience !== '' ? { audience } : {}), expirationSeconds });
      const mode = pod.spec?.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode;
      return new Map([[path, { data: Buffer.from(token, 'utf8'), mode }]]);
    }
    if (projection.clusterTrustBundle !== undefined) throw new Error('clusterTrustBundle projections are not supported by this kubelet');
    return new Map();
  };
  const results = await Promise.allSettled((options.source.sources ?? []).map(read));
  const payload = new Map<string, FileProjection>();
  const errors: Error[] = [];
  for (const result of results) {
    if (result.status === 'rejected') errors.push(result.reason instanceof Error ? result.reason : new Error(String(result.reason)));
    else for (const [path, file] of result.value) payload.set(path, file);
  }
  if (errors.length > 0) throw aggregateError(errors);
  return payload;
}
