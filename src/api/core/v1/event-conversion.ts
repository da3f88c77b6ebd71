/**
 * core/v1 Event ↔ the internal Event: the same fields, in upstream's wire
 * order, with `reportingComponent` being the internal `reportingController`.
 * Go always writes involvedObject, source, the three times (null when unset)
 * and the two reporting strings, and so do we.
 */
import { renamedFieldsConversion } from '../../conversion/renamed-fields.js';

export const coreV1EventConversion = renamedFieldsConversion({ group: '', version: 'v1', kind: 'Event' }, [
  'metadata',
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'series',
  'action',
  'related',
  ['reportingComponent', 'reportingController'],
  'reportingInstance',
], {
  involvedObject: {},
  source: {},
  firstTimestamp: null,
  lastTimestamp: null,
  eventTime: null,
  reportingComponent: '',
  reportingInstance: '',
});
