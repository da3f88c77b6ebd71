/**
 * A container's environment, as upstream's kubelet makes it
 * (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables):
 *
 * 1. the service link variables (service-env.ts);
 * 2. envFrom in order, each key with its prefix (a later source overwrites an
 *    earlier one). Since upstream relaxed env var names (1.30, KEP-4369) the
 *    kubelet no longer skips keys that are not C identifiers: every key goes in;
 * 3. env in order: a `value` is expanded against everything defined so far
 *    (`$(VAR)`, `$$` escapes, unknown references kept as written); an empty
 *    value with valueFrom takes it from fieldRef, resourceFieldRef,
 *    configMapKeyRef or secretKeyRef.
 *
 * A variable defined twice keeps its first position and its last value.
 * ConfigMaps and Secrets are read once per call. Errors are {@link EnvError}s
 * with upstream's messages; an optional reference whose object or key is
 * missing is skipped.
 */
import { goQuote } from '../../machinery/validation/go-text.js';
import type { Logger } from '../../machinery/logger.js';
import type { KeyValue } from '../runtime/interface.js';
import { isStaticPod, type ConfigMap, type ContainerSpec, type Pod, type Secret, type Service } from '../types.js';
import type { PodObjectSource } from '../volumes/interface.js';
import { extractFieldPathAsString, splitSubscriptedPath } from '../volumes/pod-fields.js';
import { containerResourceValue, findContainer, withAllocatableLimits } from '../volumes/resource-values.js';
import { expand, lookupIn } from './expansion.js';
import { EnvError, type EnvContext, type EnvResolver } from './interface.js';
import { serviceEnvVars, servicesForPod } from './service-env.js';

export interface EnvResolverOptions {
  readonly source: PodObjectSource;
  /** For the static pods' fallback when services cannot be listed. */
  readonly logger?: Logger;
}

/** Field paths env vars may use beyond the metadata ones (upstream's ConvertDownwardAPIFieldLabel). */
const ENV_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/**
 * Takes its options object, or (as the contract's NewEnvResolver type says)
 * the object source alone.
 */
export function newEnvResolver(options: EnvResolverOptions | PodObjectSource): EnvResolver {
  const { source, logger } = 'source' in options ? options : { source: options, logger: undefined };

  async function serviceEnv(pod: Pod): Promise<Map<string, string>> {
    const namespace = pod.metadata.namespace ?? 'default';
    const enableServiceLinks = pod.spec?.enableServiceLinks ?? true;
    let own: Service[] = [];
    let defaults: Service[];
    try {
      defaults = await source.services('default');
      if (enableServiceLinks && namespace !== 'default') own = await source.services(namespace);
    } catch (e: unknown) {
      // A static pod runs without an API server (upstream waits for the service informer only for API pods).
      if (isStaticPod(pod)) {
        logger?.warn({ pod: `${namespace}/${pod.metadata.name ?? ''}`, err: e }, 'services unavailable; static pod starts without service env vars');
        return new Map();
      }
      throw new EnvError('failed to list services when setting up env vars', { cause: e });
    }
    return new Map(serviceEnvVars(servicesForPod({ namespace, enableServiceLinks, own, defaults })));
  }

  return {
    async containerEnv(pod: Pod, container: ContainerSpec, context: EnvContext): Promise<KeyValue[]> {
      const namespace = pod.metadata.namespace ?? '';
      const env = await serviceEnv(pod);
      const configMaps = new Map<string, ConfigMap | undefined>();
      const secrets = new Map<string, Secret | undefined>();

      const configMap = async (name: string): Promise<ConfigMap | undefined> => {
        if (!configMaps.has(name)) configMaps.set(name, await fetch(() => source.configMap(namespace, name)));
        return configMaps.get(name);
      };
      const secret = async (name: string): Promise<Secret | undefined> => {
        if (!secrets.has(name)) secrets.set(name, await fetch(() => source.secret(namespace, name)));
        return secrets.get(name);
      };

      for (const from of container.envFrom ?? []) {
        const prefix = from.prefix ?? '';
        if (from.configMapRef !== undefined) {
          const name = from.configMapRef.name ?? '';
          const object = await configMap(name);
          if (object === undefined) {
            if (from.configMapRef.optional === true) continue;
            throw new EnvError(`configmap ${goQuote(name)} not found`);
          }
          for (const [key, value] of Object.entries(object.data ?? {})) env.set(prefix + key, value);
        } else if (from.secretRef !== undefined) {
          const name = from.secretRef.name ?? '';
          const object = await secret(name);
          if (object === undefined) {
            if (from.secretRef.optional === true) continue;
            throw new EnvError(`secret ${goQuote(name)} not found`);
          }
          for (const [key, value] of Object.entries(object.data ?? {})) env.set(prefix + key, decodeSecret(value));
        }
      }

      const lookup = lookupIn(env);
      for (const variable of container.env ?? []) {
        const literal = variable.value ?? '';
        let value = literal;
        if (literal !== '') {
          value = expand(literal, lookup);
        } else if (variable.valueFrom !== undefined) {
          const from = variable.valueFrom;
          if (from.fieldRef !== undefined) {
            value = fieldValue(pod, from.fieldRef, context);
          } else if (from.resourceFieldRef !== undefined) {
            value = resourceValue(pod, container, from.resourceFieldRef, context);
          } else if (from.configMapKeyRef !== undefined) {
            const { name = '', key, optional } = from.configMapKeyRef;
            const object = await configMap(name);
            if (object === undefined) {
              if (optional === true) continue;
              throw new EnvError(`configmap ${goQuote(name)} not found`);
            }
            const found = object.data?.[key];
            if (found === undefined) {
              if (optional === true) continue;
              throw new EnvError(`couldn't find key ${key} in ConfigMap ${namespace}/${name}`);
            }
            value = found;
          } else if (from.secretKeyRef !== undefined) {
            const { name = '', key, optional } = from.secretKeyRef;
            const object = await secret(name);
            if (object === undefined) {
              if (optional === true) continue;
              throw new EnvError(`secret ${goQuote(name)} not found`);
            }
            const found = object.data?.[key];
            if (found === undefined) {
              if (optional === true) continue;
              throw new EnvError(`couldn't find key ${key} in Secret ${namespace}/${name}`);
            }
            value = decodeSecret(found);
          }
        }
        env.set(variable.name, value);
      }
      return [...env].map(([key, value]) => ({ key, value }));
    },
  };
}

/** A source read; a failure other than "not found" becomes an EnvError with the API's message. */
async function fetch<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e: unknown) {
    throw new EnvError(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

/** Secret data is base64 on the wire. */
const decodeSecret = (value: string): string => Buffer.from(value, 'base64').toString('utf8');

function fieldValue(pod: Pod, selector: { readonly apiVersion?: string; readonly fieldPath: string }, context: EnvContext): string {
  const version = selector.apiVersion ?? 'v1';
  if (version !== 'v1') throw new EnvError(`unsupported pod version: ${version}`);
  let path = selector.fieldPath;
  const subscripted = splitSubscriptedPath(path);
  if (subscripted !== undefined) {
    if (subscripted.path !== 'metadata.annotations' && subscripted.path !== 'metadata.labels') throw new EnvError(`field label does not support subscript: ${path}`);
  } else if (path === 'spec.host') {
    path = 'spec.nodeName';
  } else if (!ENV_FIELD_PATHS.has(path)) {
    throw new EnvError(`field label not supported: ${path}`);
  }
  switch (path) {
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? context.node?.metadata.name ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.hostIPs': {
      if (context.hostIPs.length === 0) throw new EnvError('host IP unknown; known addresses: []');
      return path === 'status.hostIP' ? (context.hostIPs[0] ?? '') : context.hostIPs.join(',');
    }
    case 'status.podIP':
      return context.podIPs[0] ?? '';
    case 'status.podIPs':
      return context.podIPs.join(',');
  }
  try {
    return extractFieldPathAsString(pod, path);
  } catch (e: unknown) {
    throw new EnvError(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

function resourceValue(
  pod: Pod,
  container: ContainerSpec,
  selector: { readonly containerName?: string; readonly resource: string; readonly divisor?: string },
  context: EnvContext,
): string {
  try {
    const named = selector.containerName === undefined || selector.containerName === '' ? container : findContainer(pod, selector.containerName);
    return containerResourceValue(selector, withAllocatableLimits(named, context.node?.status?.allocatable));
  } catch (e: unknown) {
    throw new EnvError(e instanceof Error ? e.message : String(e), { cause: e });
  }
}
