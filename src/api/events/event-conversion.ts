/**
 * Event's versions: core/v1 and events.k8s.io/v1, one internal form, stored as
 * core/v1 under /registry/events/<namespace>/<name> as upstream does (the two
 * resources cohabit; the core group is the storage group).
 */
import { coreV1EventConversion } from '../core/v1/event-conversion.js';
import type { KindConversion } from '../conversion/kind-conversion.js';
import { INTERNAL_EVENT } from './internal.js';
import { eventsV1EventConversion } from './v1/conversion.js';

export const eventConversion: KindConversion = {
  internal: INTERNAL_EVENT,
  storageVersion: { group: '', version: 'v1', kind: 'Event' },
  versions: [coreV1EventConversion, eventsV1EventConversion],
};
