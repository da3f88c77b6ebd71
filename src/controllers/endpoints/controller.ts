/**
 * The endpoints controller (upstream `endpoints`): for every Service with a
 * selector, an Endpoints object of the same name listing the addresses of
 * the pods it selects, ready and not ready; deleted when the Service goes.
 * Services without a selector are left alone (their Endpoints are the
 * user's); ExternalName Services get none.
 */
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import { objectKey, splitObjectKey, type Indexer } from '../../client/cache/interfaces.js';
import { ENDPOINTS, PODS, SERVICES } from '../../client/rest/resources.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { deepCopy, jsonEqual, type KubeObject } from '../../machinery/meta.js';
import { isForbidden, isNotFound, StatusError } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, TransientError } from '../reconcile-loop.js';
import { computeEndpointSubsets, subsetsEqualIgnoringResourceVersion, countAddresses, MAX_ENDPOINTS_CAPACITY, truncateSubsets } from './endpoint-subsets.js';
import { isHeadless, type PodObject, type ServiceObject } from './pod-rules.js';
import { enqueueServicesOnChange, hasSelector } from './service-lookup.js';
import { formatTriggerTime, LAST_CHANGE_TRIGGER_TIME_ANNOTATION, TriggerTimeTracker } from './trigger-time-tracker.js';

export type EndpointsObject = Endpoints & KubeObject;

export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
/** Endpoints carrying this annotation are leader-election records, not a Service's: never cleaned up. */
export const LEADER_ELECTION_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

export interface EndpointsSyncerDeps {
  readonly client: Client;
  readonly services: Indexer<ServiceObject>;
  readonly pods: Indexer<PodObject>;
  readonly endpoints: Indexer<EndpointsObject>;
  readonly recorder: EventRecorder;
  readonly tracker?: TriggerTimeTracker;
}

/** The level-based sync of one Service key (exported for tests). */
export function newEndpointsSyncer(deps: EndpointsSyncerDeps): (key: string) => Promise<void> {
  const tracker = deps.tracker ?? new TriggerTimeTracker();
  const endpointsClient = deps.client.resource<EndpointsObject>(ENDPOINTS);
  // Upstream's staleEndpointsTracker: the resourceVersion each Endpoints had when this controller last
  // updated it. Seeing that version in the cache again means the cache has not caught up with the
  // update: writing from it would only fail with a conflict (and a FailedToUpdateEndpoint Event), so
  // the sync is retried later instead.
  const staleVersions = new Map<string, string>();
  return async (key) => {
    const { namespace, name } = splitObjectKey(key);
    const service = deps.services.get(key);
    if (service === undefined) {
      tracker.forget(key);
      staleVersions.delete(key);
      if (deps.endpoints.get(key)?.metadata.annotations?.[LEADER_ELECTION_ANNOTATION] !== undefined) return;
      try {
        await endpointsClient.delete(name, { namespace });
      } catch (e: unknown) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    if (service.spec?.type === 'ExternalName' || !hasSelector(service)) return;

    const selected = deps.pods.byIndex('namespace', namespace).filter((pod) => matchesSelector(service, pod));
    const triggerTime = tracker.compute(key, service, selected);
    const { subsets } = computeEndpointSubsets(service, selected);

    const current = deps.endpoints.get(key);
    if (current !== undefined && staleVersions.get(key) === current.metadata.resourceVersion) {
      throw new TransientError(`endpoints informer cache is out of date, resource version ${current.metadata.resourceVersion ?? ''} already processed for endpoints ${key}`);
    }
    const serviceLabels = service.metadata.labels ?? {};
    if (current !== undefined) {
      const { [HEADLESS_SERVICE_LABEL]: _headless, ...compareLabels } = current.metadata.labels ?? {};
      const capacityOk = countAddresses(current.subsets) <= MAX_ENDPOINTS_CAPACITY && current.metadata.annotations?.[OVER_CAPACITY_ANNOTATION] === undefined && countAddresses(subsets) <= MAX_ENDPOINTS_CAPACITY;
      if (subsetsEqualIgnoringResourceVersion(current.subsets ?? [], subsets) && jsonEqual(compareLabels, serviceLabels) && capacityOk) return;
    }
    const next: EndpointsObject =
      current !== undefined ? deepCopy(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } };
    next.subsets = subsets;
    const labels: Record<string, string> = { ...serviceLabels };
    if (isHeadless(service)) labels[HEADLESS_SERVICE_LABEL] = '';
    next.metadata.labels = labels;
    const annotations: Record<string, string> = { ...(next.metadata.annotations ?? {}) };
    if (triggerTime !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = formatTriggerTime(triggerTime);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
    if (truncateSubsets(next.subsets)) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    next.metadata.annotations = annotations;
    try {
      if (current === undefined) await endpointsClient.create(next, { namespace });
      else {
        await endpointsClient.update(next, { namespace });
        staleVersions.set(key, current.metadata.resourceVersion ?? '');
      }
    } catch (e: unknown) {
      if (current === undefined && isForbidden(e) && hasCause(e, NAMESPACE_TERMINATING_CAUSE)) return;
      const message = e instanceof Error ? e.message : String(e);
      if (current === undefined) deps.recorder.event(next, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${namespace}/${name}: ${message}`);
      else deps.recorder.event(next, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${namespace}/${name}: ${message}`);
      throw e;
    }
  };
}

function matchesSelector(service: ServiceObject, pod: PodObject): boolean {
  const selector = service.spec?.selector ?? {};
  const labels = pod.metadata.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function hasCause(e: unknown, type: string): boolean {
  return e instanceof StatusError && (e.status.details?.causes ?? []).some((c) => c.reason === type);
}


export const endpointsController: ControllerDefinition = {
  name: 'endpoints',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const services = ctx.informers.informerFor<ServiceObject>(SERVICES);
    const pods = ctx.informers.informerFor<PodObject>(PODS);
    const endpoints = ctx.informers.informerFor<EndpointsObject>(ENDPOINTS);
    const sync = newEndpointsSyncer({
      client: ctx.client,
      services: services.indexer,
      pods: pods.indexer,
      endpoints: endpoints.indexer,
      recorder: ctx.events.recorderFor('endpoint-controller'),
    });
    const loop = startReconcileLoop(ctx, { name: 'endpoints', reconcile: (key) => sync(key) });
    enqueueServicesOnChange(services, pods, (key) => loop.enqueue(key));
    endpoints.addEventHandler({
      // Endpoints left behind by a Service deleted while no controller ran (upstream's checkLeftoverEndpoints), and Endpoints deleted by hand.
      onDelete: (ep) => loop.enqueue(objectKey(ep)),
    });
    void (async () => {
      try {
        await ctx.informers.waitForCacheSync(ctx.signal);
      } catch {
        return;
      }
      for (const ep of endpoints.indexer.list()) {
        if (ep.metadata.annotations?.[LEADER_ELECTION_ANNOTATION] === undefined && services.indexer.get(objectKey(ep)) === undefined) loop.enqueue(objectKey(ep));
      }
    })();
  },
};
