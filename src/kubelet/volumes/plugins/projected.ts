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
import type { ProjectedVolumeSource } from 'kubernetes-types/core/v1.js';
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
  const payload = new Map<string, FileProjection>();
  const errors: Error[] = [];
  const add = (files: ReadonlyMap<string, FileProjection>): void => {
    for (const [path, file] of files) payload.set(path, file);
  };
  for (const projection of options.source.sources ?? []) {
    try {
      if (projection.configMap !== undefined) {
        const { name = '', items, optional = false } = projection.configMap;
        const configMap = await objects.configMap(namespace, name);
        if (configMap === undefined && !optional) throw new Error(`configmap "${name}" not found`);
        add(configMapPayload({ configMap, items, defaultMode, optional }));
      } else if (projection.secret !== undefined) {
        const { name = '', items, optional = false } = projection.secret;
        const secret = await objects.secret(namespace, name);
        if (secret === undefined && !optional) throw new Error(`secret "${name}" not found`);
        add(secretPayload({ secret, items, defaultMode, optional }));
      } else if (projection.downwardAPI !== undefined) {
        add(downwardApiPayload({ pod, items: projection.downwardAPI.items, defaultMode, allocatable: options.allocatable }));
      } else if (projection.serviceAccountToken !== undefined) {
        const { audience, expirationSeconds = DEFAULT_TOKEN_EXPIRATION_SECONDS, path } = projection.serviceAccountToken;
        const token = await options.tokens.token(pod, { ...(audience !== undefined && audience !== '' ? { audience } : {}), expirationSeconds });
        const mode = pod.spec?.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode;
        payload.set(path, { data: Buffer.from(token, 'utf8'), mode });
      } else if (projection.clusterTrustBundle !== undefined) {
        throw new Error('clusterTrustBundle projections are not supported by this kubelet');
      }
    } catch (e: unknown) {
      errors.push(e instanceof Error ? e : new Error(String(e)));
    }
  }
  if (errors.length > 0) throw aggregateError(errors);
  return payload;
}
