/**
 * The EndpointSlice controller (upstream `endpointslice`): for every Service
 * with a selector, discovery.k8s.io/v1 EndpointSlices per address type
 * listing its pods with their conditions, owned by the Service (the garbage
 * collector removes them with it), updated in place.
 *
 * Ordering: a pod's change reaches this controller through the pod informer,
 * whose indexer holds the new state before the handler enqueues the Service
 * (informer contract 2); every sync reads the pods from that indexer, so any
 * slice written by a sync that starts after the pod's Ready condition turned
 * False marks the endpoint not ready.
 */
import type { Indexer } from '../../client/cache/interfaces.js';
import type { Client } from '../../client/rest/interface.js';
import { ENDPOINT_SLICES, NODES, PODS, SERVICES } from '../../client/rest/resources.js';
import type { EventRecorder } from '../../client/record/interface.js';
import { isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { serviceIPFamilies, type IPFamily, type PodObject, type ServiceObject } from '../endpoints/pod-rules.js';
import { enqueueServicesOnChange, hasSelector } from '../endpoints/service-lookup.js';
import { formatTriggerTime, TriggerTimeTracker } from '../endpoints/trigger-time-tracker.js';
import { startReconcileLoop, TransientError } from '../reconcile-loop.js';
import { desiredEndpoints, type DesiredGroup, type NodeObject } from './desired-endpoints.js';
import { CONTROLLER_NAME, MANAGED_BY_LABEL, planSlices, SERVICE_NAME_LABEL, type EndpointSliceObject } from './slice-plan.js';
import { SliceTracker } from './slice-tracker.js';

/** Index of slices by `namespace/service-name` (their kubernetes.io/service-name label). */
export const SLICES_BY_SERVICE_INDEX = 'endpointslice-service';

export const isManagedSlice = (slice: EndpointSliceObject): boolean => slice.metadata.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME;

export function sliceServiceKey(slice: EndpointSliceObject): string | undefined {
  const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  return service === undefined ? undefined : `${slice.metadata.namespace ?? ''}/${service}`;
}

export interface EndpointSliceSyncerDeps {
  readonly client: Client;
  readonly services: Indexer<ServiceObject>;
  readonly pods: Indexer<PodObject>;
  readonly nodes: Indexer<NodeObject>;
  /** Must have the {@link SLICES_BY_SERVICE_INDEX} index. */
  readonly slices: Indexer<EndpointSliceObject>;
  readonly recorder: EventRecorder;
  readonly maxEndpointsPerSlice?: number;
  readonly tracker?: SliceTracker;
}

export function addSliceIndex(slices: Indexer<EndpointSliceObject>): void {
  slices.addIndexers({
    [SLICES_BY_SERVICE_INDEX]: (slice) => {
      const key = sliceServiceKey(slice);
      return key === undefined ? [] : [key];
    },
  });
}

export function newEndpointSliceSyncer(deps: EndpointSliceSyncerDeps): (key: string) => Promise<void> {
  const tracker = deps.tracker ?? new SliceTracker();
  const triggers = new TriggerTimeTracker();
  const slicesClient = deps.client.resource<EndpointSliceObject>(ENDPOINT_SLICES);
  return async (key) => {
    const service = deps.services.get(key);
    if (service === undefined) {
      // The garbage collector removes the slices with their owner.
      tracker.forgetService(key);
      triggers.forget(key);
      return;
    }
    if (service.spec?.type === 'ExternalName' || !hasSelector(service)) return;
    const namespace = service.metadata.namespace ?? '';
    const existing = deps.slices.byIndex(SLICES_BY_SERVICE_INDEX, key).filter(isManagedSlice);
    if (tracker.isStale(key, existing)) throw new TransientError('EndpointSlice informer cache is out of date');

    const selector = service.spec?.selector ?? {};
    const pods = deps.pods
      .byIndex('namespace', namespace)
      .filter((pod) => Object.entries(selector).every(([k, v]) => pod.metadata.labels?.[k] === v));
    const triggerTime = triggers.compute(key, service, pods);
    const desired = new Map<IPFamily, Map<string, DesiredGroup>>();
    let podsOnMissingNodes = 0;
    for (const family of serviceIPFamilies(service)) {
      const state = desiredEndpoints(service, pods, family, (name) => deps.nodes.get(name));
      desired.set(family, state.groups);
      podsOnMissingNodes = Math.max(podsOnMissingNodes, state.podsOnMissingNodes);
    }
    const plan = planSlices({
      service,
      desired,
      existing,
      ...(deps.maxEndpointsPerSlice !== undefined ? { maxEndpointsPerSlice: deps.maxEndpointsPerSlice } : {}),
      ...(triggerTime !== undefined ? { triggerTime: formatTriggerTime(triggerTime) } : {}),
    });
    try {
      for (const slice of plan.toCreate) tracker.wrote(key, await slicesClient.create(slice, { namespace }));
      for (const slice of plan.toUpdate) tracker.wrote(key, await slicesClient.update(slice, { namespace }));
      for (const slice of plan.toDelete) {
        try {
          await slicesClient.delete(slice.metadata.name ?? '', { namespace });
        } catch (e: unknown) {
          if (!isNotFound(e)) throw e;
        }
        tracker.deleted(key, slice);
      }
    } catch (e: unknown) {
      const message = e instanceof Error ? e.message : String(e);
      deps.recorder.event(service, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${key}: ${message}`);
      throw e;
    }
    if (podsOnMissingNodes > 0) throw new Error(`${podsOnMissingNodes} pods of Service ${key} are on nodes not in the cache yet; retrying`);
  };
}

export const endpointSliceController: ControllerDefinition = {
  name: 'endpointslice',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const services = ctx.informers.informerFor<ServiceObject>(SERVICES);
    const pods = ctx.informers.informerFor<PodObject>(PODS);
    const nodes = ctx.informers.informerFor<NodeObject>(NODES);
    const slices = ctx.informers.informerFor<EndpointSliceObject>(ENDPOINT_SLICES);
    addSliceIndex(slices.indexer);
    const sync = newEndpointSliceSyncer({
      client: ctx.client,
      services: services.indexer,
      pods: pods.indexer,
      nodes: nodes.indexer,
      slices: slices.indexer,
      recorder: ctx.events.recorderFor('endpoint-slice-controller'),
    });
    const loop = startReconcileLoop(ctx, { name: 'endpointslice', reconcile: (key) => sync(key) });
    enqueueServicesOnChange(services, pods, (key) => loop.enqueue(key));
    const onSlice = (slice: EndpointSliceObject): void => {
      const key = sliceServiceKey(slice);
      if (key !== undefined && isManagedSlice(slice)) loop.enqueue(key);
    };
    slices.addEventHandler({ onAdd: onSlice, onUpdate: (_o, s) => onSlice(s), onDelete: onSlice });
  },
};
