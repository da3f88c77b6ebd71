/**
 * events.k8s.io/v1 Event ↔ the internal Event (upstream's
 * pkg/apis/events/v1 conversion): `regarding` is `involvedObject`, `note` is
 * `message`, and the old core/v1 fields live on as `deprecatedSource`,
 * `deprecatedFirstTimestamp`, `deprecatedLastTimestamp` and `deprecatedCount`.
 * Fields are listed in upstream's wire order; Go always writes eventTime
 * (null when unset), regarding, deprecatedSource and the deprecated times.
 */
import { renamedFieldsConversion } from '../../conversion/renamed-fields.js';

export const eventsV1EventConversion = renamedFieldsConversion({ group: 'events.k8s.io', version: 'v1', kind: 'Event' }, [
  'metadata',
  'eventTime',
  'series',
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  ['regarding', 'involvedObject'],
  'related',
  ['note', 'message'],
  'type',
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
], {
  eventTime: null,
  regarding: {},
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
});
