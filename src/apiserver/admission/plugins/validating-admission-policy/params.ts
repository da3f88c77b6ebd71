/**
 * The params a binding gives its policy (upstream's CollectParams): none when
 * the policy has no paramKind or the binding no paramRef (the policy runs
 * once with params null); the object named by paramRef.name, or every object
 * paramRef.selector selects, in paramRef.namespace or else the request's
 * namespace for a namespaced paramKind; and with parameterNotFoundAction Deny,
 * finding none is an error. Reads go through the server's watch cache.
 * Errors are configuration errors, with upstream's messages.
 */
import type { ParamRef, ValidatingAdmissionPolicy } from '../../../../api/admissionregistration/v1/policy-types.js';
import { BUILTIN_RESOURCES } from '../../../../api/resources.js';
import { parseGroupVersion } from '../../../../api/scheme.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { labelSelectorFromObject } from '../../../../machinery/selectors/label-selector.js';
import { isNotFound } from '../../../../machinery/status.js';
import type { StoreLookup } from '../../../endpoints/target.js';
import type { GenericStore } from '../../../registry/generic/store.js';

/** A configuration error: the message upstream gives, for `failed to configure policy|binding: …`. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/** [null] when the policy takes no params. */
export type Params = readonly (KubeObject | null)[];

/** The store serving a paramKind, or a ConfigurationError naming it as upstream does (`G/V, Kind=K`). */
export function paramStore(stores: StoreLookup, paramKind: { apiVersion?: string; kind?: string }): GenericStore {
  const gv = parseGroupVersion(paramKind.apiVersion ?? '');
  const kind = paramKind.kind ?? '';
  const builtin = BUILTIN_RESOURCES.find((r) => r.group === gv.group && r.version === gv.version && r.kind === kind);
  const lower = kind.toLowerCase();
  const candidates = builtin !== undefined ? [builtin.resource] : [`${lower}s`, `${lower}es`, lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`];
  for (const resource of candidates) {
    const store = stores(gv.group, gv.version, resource);
    if (store !== undefined && store.resource.kind === kind) return store;
  }
  throw new ConfigurationError(`failed to find resource referenced by paramKind: '${gv.group}/${gv.version}, Kind=${kind}'`);
}

export async function collectParams(
  stores: StoreLookup,
  policy: ValidatingAdmissionPolicy,
  paramRef: ParamRef | undefined | null,
  requestNamespace: string,
): Promise<Params> {
  const paramKind = policy.spec?.paramKind;
  if (paramKind === undefined || paramKind === null || paramRef === undefined || paramRef === null) return [null];
  const store = paramStore(stores, paramKind);
  const refNamespace = paramRef.namespace ?? '';
  let namespace: string | undefined;
  if (store.resource.namespaced) {
    namespace = refNamespace !== '' ? refNamespace : requestNamespace;
    if (namespace === '') throw new ConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (refNamespace !== '') {
    throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KubeObject[];
  const name = paramRef.name ?? '';
  if (name !== '') {
    if (paramRef.selector !== undefined && paramRef.selector !== null) throw new ConfigurationError('paramRef.name and paramRef.selector are mutually exclusive');
    try {
      params = [await store.get(namespace, name)];
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
      params = [];
    }
  } else if (paramRef.selector !== undefined && paramRef.selector !== null) {
    const selector = labelSelectorFromObject(paramRef.selector);
    const list = await store.list(namespace);
    params = list.items.filter((o) => selector.matches((o.metadata.labels ?? {}) as Record<string, string>));
  } else {
    throw new ConfigurationError('one of name or selector must be provided');
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params;
}
