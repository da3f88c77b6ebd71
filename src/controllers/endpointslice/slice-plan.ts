/**
 * The writes that bring a Service's EndpointSlices to the desired state
 * (after upstream's endpointslice reconciler): existing slices are updated
 * in place (an endpoint keeps its slice; changed endpoints are replaced,
 * gone ones removed), new endpoints go first into slices being updated
 * anyway, then into new slices of at most maxEndpointsPerSlice; a slice left
 * empty is deleted, or reused instead of creating another. A Service with no
 * endpoints keeps one empty placeholder slice.
 */
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { deepCopy, jsonEqual, type KubeObject, type OwnerReference } from '../../machinery/meta.js';
import { isHeadless, type IPFamily, type ServiceObject } from '../endpoints/pod-rules.js';
import { LAST_CHANGE_TRIGGER_TIME_ANNOTATION } from '../endpoints/trigger-time-tracker.js';
import { endpointKey, portsKey, type DesiredGroup } from './desired-endpoints.js';

export type EndpointSliceObject = EndpointSlice & KubeObject;

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
/** Upstream's --max-endpoints-per-slice default. */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;

export interface SlicePlanInput {
  readonly service: ServiceObject;
  /** Desired groups (by ports key) per address type the Service serves, in the Service's family order. */
  readonly desired: ReadonlyMap<IPFamily, ReadonlyMap<string, DesiredGroup>>;
  /** The slices this controller manages for the Service. */
  readonly existing: readonly EndpointSliceObject[];
  readonly maxEndpointsPerSlice?: number;
  /** The last-change-trigger-time annotation for slices this plan writes. */
  readonly triggerTime?: string;
}

export interface SlicePlan {
  readonly toCreate: EndpointSliceObject[];
  readonly toUpdate: EndpointSliceObject[];
  readonly toDelete: EndpointSliceObject[];
}

const RESERVED_LABELS = new Set([SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_SERVICE_LABEL]);

export function desiredSliceLabels(service: ServiceObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(service.metadata.labels ?? {})) if (!RESERVED_LABELS.has(k)) labels[k] = v;
  labels[SERVICE_NAME_LABEL] = service.metadata.name ?? '';
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME;
  if (isHeadless(service)) labels[HEADLESS_SERVICE_LABEL] = '';
  return labels;
}

export function serviceOwnerReference(service: ServiceObject): OwnerReference {
  return { apiVersion: 'v1', kind: 'Service', name: service.metadata.name ?? '', uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

interface Working {
  slice: EndpointSliceObject;
  endpoints: Endpoint[];
  changed: boolean;
}

export function planSlices(input: SlicePlanInput): SlicePlan {
  const { service } = input;
  const max = input.maxEndpointsPerSlice ?? DEFAULT_MAX_ENDPOINTS_PER_SLICE;
  const labels = desiredSliceLabels(service);
  const owner = serviceOwnerReference(service);
  const kept: Working[] = [];
  const emptied: EndpointSliceObject[] = [];
  const fresh: { addressType: IPFamily; ports: DesiredGroup['ports']; endpoints: Endpoint[] }[] = [];

  for (const slice of input.existing) {
    if (!input.desired.has(slice.addressType as IPFamily)) emptied.push(slice);
  }
  for (const [addressType, groups] of input.desired) {
    const existingOfType = input.existing.filter((s) => s.addressType === addressType);
    const portKeys = new Set<string>([...groups.keys(), ...existingOfType.map((s) => portsKey(s.ports))]);
    for (const key of portKeys) {
      const group = groups.get(key);
      const remaining = new Map(group?.endpoints ?? []);
      const working: Working[] = [];
      for (const slice of existingOfType.filter((s) => portsKey(s.ports) === key)) {
        const w: Working = { slice, endpoints: [], changed: false };
        for (const endpoint of slice.endpoints ?? []) {
          const k = endpointKey(endpoint);
          const want = remaining.get(k);
          if (want === undefined) {
            w.changed = true;
            continue;
          }
          remaining.delete(k);
          if (!jsonEqual(endpoint, want)) w.changed = true;
          w.endpoints.push(want);
        }
        if (w.endpoints.length === 0) emptied.push(slice);
        else working.push(w);
      }
      // New endpoints: first into slices that change anyway, then into unchanged ones with room, then new slices.
      const toPlace = [...remaining.values()];
      const byPreference = [...working.filter((w) => w.changed), ...working.filter((w) => !w.changed).sort((a, b) => a.endpoints.length - b.endpoints.length)];
      for (const w of byPreference) {
        while (toPlace.length > 0 && w.endpoints.length < max) {
          w.endpoints.push(toPlace.shift()!);
          w.changed = true;
        }
      }
      while (toPlace.length > 0 && group !== undefined) fresh.push({ addressType, ports: group.ports, endpoints: toPlace.splice(0, max) });
      kept.push(...working);
    }
  }

  const toCreate: EndpointSliceObject[] = [];
  const toUpdate: EndpointSliceObject[] = [];
  const withAnnotation = (annotations: Record<string, string> | undefined): Record<string, string> | undefined => {
    const next = { ...(annotations ?? {}) };
    if (input.triggerTime !== undefined) next[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = input.triggerTime;
    else delete next[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
    return Object.keys(next).length > 0 ? next : undefined;
  };
  const rewrite = (slice: EndpointSliceObject, addressType: string, ports: DesiredGroup['ports'], endpoints: Endpoint[]): EndpointSliceObject => {
    const next = deepCopy(slice);
    next.addressType = addressType;
    next.ports = ports;
    next.endpoints = endpoints;
    next.metadata.labels = labels;
    next.metadata.ownerReferences = [owner];
    const annotations = withAnnotation(next.metadata.annotations);
    if (annotations === undefined) delete next.metadata.annotations;
    else next.metadata.annotations = annotations;
    return next;
  };
  const metadataCurrent = (slice: EndpointSliceObject): boolean =>
    jsonEqual(slice.metadata.labels ?? {}, labels) && jsonEqual(slice.metadata.ownerReferences ?? [], [owner]);

  for (const w of kept) {
    if (w.changed) toUpdate.push(rewrite(w.slice, w.slice.addressType, w.slice.ports ?? [], w.endpoints));
    else if (!metadataCurrent(w.slice)) {
      const next = deepCopy(w.slice);
      next.metadata.labels = labels;
      next.metadata.ownerReferences = [owner];
      toUpdate.push(next);
    }
  }
  // Reuse emptied slices for new ones rather than delete one and create another.
  for (const f of fresh) {
    const reusable = emptied.shift();
    if (reusable !== undefined) toUpdate.push(rewrite(reusable, f.addressType, f.ports, f.endpoints));
    else toCreate.push(newSlice(service, f.addressType, f.ports, f.endpoints, labels, owner, withAnnotation(undefined)));
  }
  // No endpoints at all: one empty placeholder slice, kept as it is when it already exists.
  if (kept.length === 0 && fresh.length === 0) {
    const addressType = [...input.desired.keys()][0] ?? 'IPv4';
    const placeholderIndex = emptied.findIndex((s) => s.addressType === addressType && (s.endpoints ?? []).length === 0 && (s.ports ?? []).length === 0);
    if (placeholderIndex >= 0) {
      const [placeholder] = emptied.splice(placeholderIndex, 1);
      if (!metadataCurrent(placeholder!)) toUpdate.push(rewrite(placeholder!, addressType, [], []));
    } else {
      const reusable = emptied.shift();
      if (reusable !== undefined) toUpdate.push(rewrite(reusable, addressType, [], []));
      else toCreate.push(newSlice(service, addressType, [], [], labels, owner, withAnnotation(undefined)));
    }
  }
  return { toCreate, toUpdate, toDelete: emptied };
}

function newSlice(
  service: ServiceObject,
  addressType: string,
  ports: DesiredGroup['ports'],
  endpoints: Endpoint[],
  labels: Record<string, string>,
  owner: OwnerReference,
  annotations: Record<string, string> | undefined,
): EndpointSliceObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: `${service.metadata.name ?? ''}-`,
      namespace: service.metadata.namespace ?? '',
      labels: { ...labels },
      ownerReferences: [{ ...owner }],
      ...(annotations !== undefined ? { annotations } : {}),
    },
    addressType,
    endpoints,
    ports,
  };
}
