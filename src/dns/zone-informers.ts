/**
 * Keeps a {@link ZoneIndex} equal to the Services and EndpointSlices the API
 * server holds: every informer event recomputes the records of the one
 * Service it concerns (its own, or the one a slice's
 * kubernetes.io/service-name label names).
 */
import type { Indexer, InformerFactory } from '../client/cache/interfaces.js';
import { objectKey } from '../client/cache/interfaces.js';
import { ENDPOINT_SLICES, SERVICES } from '../client/rest/resources.js';
import { serviceRecords } from './records.js';
import { SERVICE_NAME_LABEL, serviceEntry, type EndpointSliceObject, type ServiceObject } from './service-entry.js';
import type { ZoneIndex } from './zone-index.js';

/** Index of EndpointSlices by `namespace/service-name`. */
export const SLICES_BY_SERVICE = 'dns-slices-by-service';

export interface ZoneFeedOptions {
  readonly informers: InformerFactory;
  readonly zone: ZoneIndex;
  readonly domain: string;
  readonly ttl: number;
}

export function sliceServiceKey(slice: EndpointSliceObject): string | undefined {
  const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  return service === undefined || service === '' ? undefined : `${slice.metadata.namespace ?? ''}/${service}`;
}

/** Recompute one Service's records from the caches. */
export function refreshService(key: string, services: Indexer<ServiceObject>, slices: Indexer<EndpointSliceObject>, options: Pick<ZoneFeedOptions, 'zone' | 'domain' | 'ttl'>): void {
  const service = services.get(key);
  if (service === undefined) {
    options.zone.deleteService(key);
    return;
  }
  options.zone.setService(key, serviceRecords(serviceEntry(service, slices.byIndex(SLICES_BY_SERVICE, key)), options.domain, options.ttl));
}

/** Register the handlers (before or after the factory starts); the zone follows the caches from then on. */
export function feedZone(options: ZoneFeedOptions): void {
  const services = options.informers.informerFor<ServiceObject>(SERVICES);
  const slices = options.informers.informerFor<EndpointSliceObject>(ENDPOINT_SLICES);
  slices.indexer.addIndexers({
    [SLICES_BY_SERVICE]: (slice) => {
      const key = sliceServiceKey(slice);
      return key === undefined ? [] : [key];
    },
  });
  const refresh = (key: string): void => refreshService(key, services.indexer, slices.indexer, options);
  const onService = (service: ServiceObject): void => refresh(objectKey(service));
  services.addEventHandler({ onAdd: onService, onUpdate: (_old, service) => onService(service), onDelete: onService });
  const onSlice = (slice: EndpointSliceObject): void => {
    const key = sliceServiceKey(slice);
    if (key !== undefined) refresh(key);
  };
  slices.addEventHandler({
    onAdd: onSlice,
    onUpdate: (old, slice) => {
      const oldKey = sliceServiceKey(old);
      if (oldKey !== undefined && oldKey !== sliceServiceKey(slice)) refresh(oldKey);
      onSlice(slice);
    },
    onDelete: onSlice,
  });
}
