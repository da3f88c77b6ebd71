/**
 * ServiceAccount (upstream's plugin/pkg/admission/serviceaccount), mutating
 * and validating, for pods:
 *
 * - a new pod that names no service account runs as `default`, and the
 *   account must exist: while it does not, the pod is refused (403
 *   `error looking up service account <ns>/<name>: serviceaccount "<name>" not found`).
 *   As upstream, a missing `default` is looked up again for a moment (10
 *   tries, 100–200 ms apart), because the ServiceAccount controller creates
 *   it just after its namespace;
 * - unless the pod (first) or the account (then) turns automountServiceAccountToken
 *   off, the projected kube-api-access-* volume is mounted into every
 *   container and init container (token-volume.ts);
 * - the account's imagePullSecrets are the pod's when it has none;
 * - an account annotated kubernetes.io/enforce-mountable-secrets=true limits
 *   the pod (and later ephemeral containers) to the secrets it lists;
 * - mirror pods (annotation kubernetes.io/config.mirror) are left unchanged
 *   and refused if they name a service account, a secret or a token projection.
 */
import type { Pod, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { admitServiceAccount } from '../../../../api/core/v1/admission-defaults.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { forbidden, isNotFound, notFound } from '../../../../machinery/status.js';
import type { AdmissionAttributes, AdmissionDependencies, MutatingAdmissionPlugin, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { enforcesMountableSecrets, ephemeralSecretReferenceProblem, podSecretNames, secretReferenceProblem } from './secret-references.js';
import { mountServiceAccountToken, randomSuffix } from './token-volume.js';
import { watchObjects } from '../../watched-objects.js';

export const NAME = 'ServiceAccount';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const PODS = { group: '', resource: 'pods' };
/** upstream's NotFound of the lookup names the resource in the singular. */
const SERVICE_ACCOUNT_RESOURCE = { group: '', resource: 'serviceaccount' };

export interface ServiceAccountOptions {
  /** Waits between lookups of a missing `default` (tests pass one that does not wait). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The token volume's name suffix (tests pass a fixed one). */
  readonly suffix?: () => string;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** upstream's extractResourceName: the request's name, else the object's name or generateName, else "Unknown". */
function nameOf(a: AdmissionAttributes): string {
  if (a.name !== '') return a.name;
  const meta = a.object?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

function ignored(a: AdmissionAttributes): boolean {
  return a.resource.group !== '' || a.resource.resource !== 'pods' || (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') || a.object === undefined;
}

/** Run a check that answers synchronously when it can: nothing (admitted) or a promise, a refusal always as a rejected one. */
function settle(check: () => Promise<void> | void): Promise<void> | void {
  try {
    return check();
  } catch (e: unknown) {
    return Promise.reject(e);
  }
}

const isMirror = (pod: Pod): boolean => pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;

export function newServiceAccount(deps: AdmissionDependencies, options: ServiceAccountOptions = {}): MutatingAdmissionPlugin & ValidatingAdmissionPlugin {
  const sleep = options.sleep ?? wait;
  const suffix = options.suffix ?? randomSuffix;

  // As upstream's informer-fed lister: the usual pod create finds its service account in memory;
  // a miss (a new namespace, an account made a moment ago) falls back to live lookups.
  const served = deps.stores('', 'v1', 'serviceaccounts');
  const index = served === undefined ? undefined : watchObjects<ServiceAccount & KubeObject>({ store: served, signal: deps.signal });

  async function lookup(namespace: string, name: string): Promise<ServiceAccount> {
    const store = served;
    if (store === undefined) throw new Error('the serviceaccounts store is not served');
    if (index?.synced === true) {
      const found = index.get(namespace, name);
      if (found !== undefined) return found;
    }
    // A missing default is probably being created by the ServiceAccount controller right now.
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? 10 : 1;
    const interval = 100 + Math.floor(Math.random() * 100);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(interval);
      try {
        return (await store.get(namespace, name)) as ServiceAccount;
      } catch (e: unknown) {
        if (!isNotFound(e)) throw e;
      }
    }
    throw notFound(SERVICE_ACCOUNT_RESOURCE, name);
  }

  /** The pod's account when memory has it (the usual create: admitted without waiting a turn), else undefined: ask serviceAccountOf. */
  function indexedServiceAccountOf(a: AdmissionAttributes, pod: Pod): ServiceAccount | undefined {
    const name = pod.spec?.serviceAccountName ?? '';
    return name !== '' && index?.synced === true ? index.get(a.namespace, name) : undefined;
  }

  /** serviceAccountOf, synchronously when memory has the account. */
  function withServiceAccount(a: AdmissionAttributes, pod: Pod, then: (sa: ServiceAccount) => void): Promise<void> | void {
    const known = indexedServiceAccountOf(a, pod);
    if (known !== undefined) return then(known);
    return serviceAccountOf(a, pod).then(then);
  }

  async function serviceAccountOf(a: AdmissionAttributes, pod: Pod): Promise<ServiceAccount> {
    const name = pod.spec?.serviceAccountName ?? '';
    if (name === '') throw forbidden(PODS, nameOf(a), `no service account specified for pod ${a.namespace}/${pod.metadata?.name ?? ''}`);
    try {
      return await lookup(a.namespace, name);
    } catch (e: unknown) {
      throw forbidden(PODS, nameOf(a), `error looking up service account ${a.namespace}/${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  function validateMirror(a: AdmissionAttributes, pod: Pod): void {
    const refuse = (message: string) => forbidden(PODS, nameOf(a), message);
    if ((pod.spec?.serviceAccountName ?? '') !== '') throw refuse('a mirror pod may not reference service accounts');
    if (podSecretNames(pod).length > 0) throw refuse('a mirror pod may not reference secrets');
    for (const v of pod.spec?.volumes ?? []) {
      for (const source of v.projected?.sources ?? []) {
        if (source.serviceAccountToken !== undefined) throw refuse('a mirror pod may not use ServiceAccountToken volume projections');
        if ((source as { clusterTrustBundle?: unknown }).clusterTrustBundle !== undefined) throw refuse('a mirror pod may not use ClusterTrustBundle volume projections');
      }
    }
  }

  function validate(a: AdmissionAttributes): Promise<void> | void {
    return settle(() => validateNow(a));
  }

  function validateNow(a: AdmissionAttributes): Promise<void> | void {
    if (ignored(a)) return;
    const pod = a.object as unknown as Pod;
    if (a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers') {
      return withServiceAccount(a, pod, (sa) => {
        if (!enforcesMountableSecrets(sa)) return;
        const problem = ephemeralSecretReferenceProblem(sa, pod);
        if (problem !== undefined) throw forbidden(PODS, nameOf(a), problem);
      });
    }
    if (a.operation !== 'CREATE' || a.subresource !== '') return;
    if (isMirror(pod)) return validateMirror(a, pod);
    return withServiceAccount(a, pod, (sa) => {
      if (enforcesMountableSecrets(sa)) {
        const problem = secretReferenceProblem(sa, pod);
        if (problem !== undefined) throw forbidden(PODS, nameOf(a), problem);
      }
    });
  }

  function admit(a: AdmissionAttributes): Promise<void> | void {
    if (ignored(a) || a.operation !== 'CREATE' || a.subresource !== '') return;
    const pod = a.object as unknown as Pod;
    if (isMirror(pod)) return validateMirror(a, pod);
    admitServiceAccount(pod);
    return withServiceAccount(a, pod, (sa) => {
      const automount = pod.spec?.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (automount) mountServiceAccountToken(pod, suffix);
      const spec = pod.spec!;
      if ((spec.imagePullSecrets ?? []).length === 0 && (sa.imagePullSecrets ?? []).length > 0) {
        spec.imagePullSecrets = (sa.imagePullSecrets ?? []).map((s) => ({ name: s.name ?? '' }));
      }
      // The checks of validate() follow in the validating phase of the same request.
    });
  }

  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    admit: (a) => settle(() => admit(a)),
    validate,
  };
}
