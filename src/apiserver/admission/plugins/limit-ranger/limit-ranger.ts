/**
 * The LimitRanger admission plugin (upstream plugin/pkg/admission/limitranger):
 * - mutating: a new pod's containers get the `default` limits and
 *   `defaultRequest` requests of the namespace's LimitRanges (Container items)
 *   for what they do not state, noted in the `kubernetes.io/limit-ranger` annotation;
 * - validating: min, max and maxLimitRequestRatio of Container and Pod items
 *   for new pods, and min and max of PersistentVolumeClaim items for claims,
 *   refused 403 with upstream's messages.
 * Pod updates are not handled (containers' resources are immutable), nor subresources.
 */
import type { Container, LimitRange, LimitRangeItem, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { forbidden } from '../../../../machinery/status.js';
import { podLimits, podRequests } from '../../../../api/quota/pod-resources.js';
import type { ResourceList } from '../../../../api/quota/resource-list.js';
import type { AdmissionAttributes, AdmissionDependencies, AdmissionPluginFactory, MutatingAdmissionPlugin, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { newLiveLookup, watchObjects } from '../../watched-objects.js';
import { limitRequestRatioConstraint, maxConstraint, maxRequestConstraint, minConstraint } from './constraints.js';

export const NAME = 'LimitRanger';
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Resources = Record<string, string>;

/**
 * A LimitRange item with upstream's API defaults (SetDefaults_LimitRangeItem)
 * applied for Container items: default ← max, defaultRequest ← default, then ← min.
 */
export function itemWithDefaults(item: LimitRangeItem): LimitRangeItem {
  if (item.type !== 'Container') return item;
  const fill = (into: Resources, from: ResourceList | undefined): void => {
    for (const [k, v] of Object.entries(from ?? {})) if (into[k] === undefined) into[k] = v;
  };
  const def: Resources = { ...((item.default ?? {}) as Resources) };
  fill(def, item.max as ResourceList | undefined);
  const defaultRequest: Resources = { ...((item.defaultRequest ?? {}) as Resources) };
  fill(defaultRequest, def);
  fill(defaultRequest, item.min as ResourceList | undefined);
  return { ...item, default: def, defaultRequest };
}

/** Apply the defaults to one container; the notes upstream writes into the annotation. */
function defaultContainer(container: Container, limits: ResourceList, requests: ResourceList, prefix: string): string[] {
  const resources = (container.resources ??= {});
  const stated = { limits: { ...((resources.limits ?? {}) as Resources) }, requests: { ...((resources.requests ?? {}) as Resources) } };
  // The API's own defaulting (a limit without a request requests the limit) happens before admission upstream; here after, so do it first.
  for (const [k, v] of Object.entries(stated.limits)) if (stated.requests[k] === undefined) stated.requests[k] = v;
  const setLimits = Object.keys(limits).filter((k) => stated.limits[k] === undefined).sort();
  const setRequests = Object.keys(requests).filter((k) => stated.requests[k] === undefined).sort();
  if (setLimits.length > 0) resources.limits = { ...(resources.limits ?? {}), ...Object.fromEntries(setLimits.map((k) => [k, limits[k]!])) };
  if (setRequests.length > 0) resources.requests = { ...(resources.requests ?? {}), ...Object.fromEntries(setRequests.map((k) => [k, requests[k]!])) };
  const notes: string[] = [];
  if (setRequests.length > 0) notes.push(`${setRequests.join(', ')} request for ${prefix} ${container.name}`);
  if (setLimits.length > 0) notes.push(`${setLimits.join(', ')} limit for ${prefix} ${container.name}`);
  return notes;
}

/** Upstream's PodMutateLimitFunc. */
export function defaultPod(pod: Pod, ranges: readonly LimitRange[]): void {
  const limits: Resources = {};
  const requests: Resources = {};
  for (const range of ranges) {
    for (const raw of range.spec?.limits ?? []) {
      if (raw.type !== 'Container') continue;
      const item = itemWithDefaults(raw);
      Object.assign(requests, item.defaultRequest ?? {});
      Object.assign(limits, item.default ?? {});
    }
  }
  if (Object.keys(limits).length === 0 && Object.keys(requests).length === 0) return;
  const notes: string[] = [];
  for (const c of pod.spec?.containers ?? []) notes.push(...defaultContainer(c, limits, requests, 'container'));
  for (const c of pod.spec?.initContainers ?? []) notes.push(...defaultContainer(c, limits, requests, 'init container'));
  if (notes.length > 0) {
    const meta = (pod.metadata ??= {});
    meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

const sortedEntries = (list: ResourceList | undefined): [string, string][] => Object.entries(list ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function checkBounds(errors: string[], item: LimitRangeItem, limitType: string, requests: ResourceList, limits: ResourceList): void {
  for (const [k, v] of sortedEntries(item.min as ResourceList | undefined)) push(errors, minConstraint(limitType, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max as ResourceList | undefined)) push(errors, maxConstraint(limitType, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio as ResourceList | undefined)) push(errors, limitRequestRatioConstraint(limitType, k, v, requests, limits));
}

function push(errors: string[], error: string | undefined): void {
  if (error !== undefined && !errors.includes(error)) errors.push(error);
}

/** Upstream's PodValidateLimitFunc for one LimitRange: the messages of every bound broken. */
export function validatePod(pod: Pod, range: LimitRange): string[] {
  const errors: string[] = [];
  for (const raw of range.spec?.limits ?? []) {
    const item = itemWithDefaults(raw);
    if (item.type === 'Container') {
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
        checkBounds(errors, item, 'Container', (c.resources?.requests ?? {}) as ResourceList, (c.resources?.limits ?? {}) as ResourceList);
      }
    } else if (item.type === 'Pod') {
      checkBounds(errors, item, 'Pod', podRequests(pod), podLimits(pod));
    }
  }
  return errors;
}

/** Upstream's PersistentVolumeClaimValidateLimitFunc. */
export function validateClaim(claim: PersistentVolumeClaim, range: LimitRange): string[] {
  const errors: string[] = [];
  const requests = (claim.spec?.resources?.requests ?? {}) as ResourceList;
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min as ResourceList | undefined)) push(errors, minConstraint('PersistentVolumeClaim', k, v, requests, {}));
    for (const [k, v] of sortedEntries(item.max as ResourceList | undefined)) push(errors, maxRequestConstraint('PersistentVolumeClaim', k, v, requests));
  }
  return errors;
}

/** Upstream's utilerrors.NewAggregate(...).Error(): one message alone, several in brackets. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

function isPod(a: AdmissionAttributes): boolean {
  return a.resource.group === '' && a.resource.resource === 'pods';
}
function isClaim(a: AdmissionAttributes): boolean {
  return a.resource.group === '' && a.resource.resource === 'persistentvolumeclaims';
}

export function newLimitRangerPlugin(deps: AdmissionDependencies): MutatingAdmissionPlugin & ValidatingAdmissionPlugin {
  const store = deps.stores('', 'v1', 'limitranges');
  const live = newLiveLookup<LimitRange>();
  // The LimitRanges in memory, fed by a watch (upstream's informer); a namespace it shows empty is looked up live, as upstream.
  const index = store === undefined ? undefined : watchObjects<LimitRange & KubeObject>({ store, signal: deps.signal, onChange: (ns) => live.forget(ns) });
  const listed = async (namespace: string): Promise<readonly LimitRange[]> => (await store!.list(namespace)).items as LimitRange[];
  /** The namespace's LimitRanges when memory knows them (the common case: no waiting), else undefined. */
  const rangesNow = (namespace: string): readonly LimitRange[] | undefined => {
    if (store === undefined || index === undefined) return [];
    if (!index.synced) return undefined;
    const ranges = index.list(namespace);
    return ranges.length > 0 ? ranges : live.peek(namespace);
  };
  const rangesOf = async (namespace: string): Promise<readonly LimitRange[]> => {
    if (!index!.synced) return listed(namespace);
    const ranges = index!.list(namespace);
    return ranges.length > 0 ? ranges : live.lookup(namespace, () => listed(namespace));
  };
  const supports = (a: AdmissionAttributes): boolean =>
    a.subresource === '' && a.namespace !== '' && a.object !== undefined && ((isPod(a) && a.operation === 'CREATE') || isClaim(a));
  const mutate = (a: AdmissionAttributes, ranges: readonly LimitRange[]): void => {
    if (ranges.length > 0) defaultPod(a.object as Pod & KubeObject, ranges);
  };
  const check = (a: AdmissionAttributes, ranges: readonly LimitRange[]): void => {
    const gr = { group: a.resource.group, resource: a.resource.resource };
    const name = a.name !== '' ? a.name : (a.object?.metadata.name ?? '');
    for (const range of ranges) {
      const errors = isPod(a) ? validatePod(a.object as Pod, range) : validateClaim(a.object as PersistentVolumeClaim, range);
      if (errors.length > 0) throw forbidden(gr, name, aggregate(errors));
    }
  };

  // Synchronous when memory answers, so that the chain has nothing to wait for.
  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    admit(a) {
      if (!supports(a) || !isPod(a)) return undefined;
      const ranges = rangesNow(a.namespace);
      if (ranges !== undefined) return mutate(a, ranges);
      return rangesOf(a.namespace).then((found) => mutate(a, found));
    },
    validate(a) {
      if (!supports(a)) return undefined;
      const ranges = rangesNow(a.namespace);
      if (ranges !== undefined) return check(a, ranges);
      return rangesOf(a.namespace).then((found) => check(a, found));
    },
  };
}

export const newLimitRanger: AdmissionPluginFactory = (deps) => newLimitRangerPlugin(deps);
