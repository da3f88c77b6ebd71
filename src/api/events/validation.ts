/**
 * Event validation (upstream's ValidateEventCreate and ValidateEventUpdate),
 * on the internal form and by the version of the request: core/v1 requests get
 * the legacy checks only, for compatibility with old clients; events.k8s.io/v1
 * requests get the strict ones too (eventTime and the reporting fields
 * required, the deprecated fields unset, most fields immutable). Field paths
 * are internal names, as upstream reports them (`message`, not `note`).
 */
import { FieldPath, invalid, required, type FieldError } from '../../machinery/field-errors.js';
import { byteLength } from '../../machinery/validation/go-text.js';
import { validateImmutableField } from '../../machinery/validation/immutable.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../machinery/validation/names.js';
import type { GroupVersion } from '../scheme.js';
import type { InternalEvent } from './internal.js';

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

const path = (p: string): FieldPath => FieldPath.root(p);

/** core/v1 and events.k8s.io/v1beta1 keep the legacy rules only. */
function isLegacyVersion(gv: GroupVersion): boolean {
  return (gv.group === '' && gv.version === 'v1') || (gv.group === 'events.k8s.io' && gv.version === 'v1beta1');
}

/** Go's zero time: absent, null, empty, or the year-1 instant. */
export function isZeroTime(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  return typeof value === 'string' && /^0001-01-01T00:00:00(\.0+)?Z$/.test(value);
}

export function validateEventCreate(event: InternalEvent, requestVersion: GroupVersion): FieldError[] {
  const errs = legacyValidateEvent(event);
  if (isLegacyVersion(requestVersion)) return errs;
  errs.push(...validateSeries(event));
  if (isZeroTime(event.eventTime)) errs.push(required(path('eventTime')));
  if (event.type !== 'Normal' && event.type !== 'Warning') errs.push(invalid(path('type'), '', `has invalid value: ${event.type ?? ''}`));
  if (!isZeroTime(event.firstTimestamp)) errs.push(invalid(path('firstTimestamp'), '', 'needs to be unset'));
  if (!isZeroTime(event.lastTimestamp)) errs.push(invalid(path('lastTimestamp'), '', 'needs to be unset'));
  if ((event.count ?? 0) !== 0) errs.push(invalid(path('count'), '', 'needs to be unset'));
  if ((event.source?.component ?? '') !== '' || (event.source?.host ?? '') !== '') errs.push(invalid(path('source'), '', 'needs to be unset'));
  return errs;
}

/** The fields an events.k8s.io/v1 update may not change, in upstream's order (reason is checked twice there too). */
const IMMUTABLE: readonly string[] = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'reason',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingController',
  'reportingInstance',
];

export function validateEventUpdate(event: InternalEvent, old: InternalEvent, requestVersion: GroupVersion): FieldError[] {
  const errs = legacyValidateEvent(event);
  if (isLegacyVersion(requestVersion)) return errs;
  if (!goEqual(event.series, old.series)) errs.push(...validateSeries(event));
  for (const field of IMMUTABLE) {
    if (!goEqual(event[field], old[field])) errs.push(...validateImmutableField(event[field], old[field], path(field)));
  }
  return errs;
}

function validateSeries(event: InternalEvent): FieldError[] {
  const series = event.series;
  if (series === undefined || series === null) return [];
  const errs: FieldError[] = [];
  if ((series.count ?? 0) < 2) errs.push(invalid(path('series.count'), '', 'should be at least 2'));
  if (isZeroTime(series.lastObservedTime)) errs.push(required(path('series.lastObservedTime')));
  return errs;
}

/** The checks every event passes, whatever the request version. */
function legacyValidateEvent(event: InternalEvent): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involvedNamespace = event.involvedObject?.namespace ?? '';
  const namespaceMismatch = (): FieldError => invalid(path('involvedObject.namespace'), involvedNamespace, 'does not match event.namespace');
  if (isZeroTime(event.eventTime)) {
    // An old-style event: its namespace is its object's (or default, for cluster-scoped objects).
    if (involvedNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace) errs.push(namespaceMismatch());
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(namespaceMismatch());
    const controller = event.reportingController ?? '';
    if (controller === '') errs.push(required(path('reportingController')));
    for (const msg of isQualifiedName(controller)) errs.push(invalid(path('reportingController'), controller, msg));
    const instance = event.reportingInstance ?? '';
    if (instance === '') errs.push(required(path('reportingInstance')));
    if (byteLength(instance) > REPORTING_INSTANCE_LENGTH_LIMIT) {
      errs.push(invalid(path('reportingInstance'), '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    }
    const action = event.action ?? '';
    if (action === '') errs.push(required(path('action')));
    if (byteLength(action) > ACTION_LENGTH_LIMIT) errs.push(invalid(path('action'), '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    const reason = event.reason ?? '';
    if (reason === '') errs.push(required(path('reason')));
    if (byteLength(reason) > REASON_LENGTH_LIMIT) errs.push(invalid(path('reason'), '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (byteLength(event.message ?? '') > NOTE_LENGTH_LIMIT) errs.push(invalid(path('message'), '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(invalid(path('namespace'), namespace, msg));
  return errs;
}

/** Equality as Go sees two decoded values: zero values ('', 0, false, null, {}, absent) are all the same. */
function goEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(withoutZeros(a)) === JSON.stringify(withoutZeros(b));
}

function withoutZeros(value: unknown): unknown {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(withoutZeros);
  if (typeof value === 'object') {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, withoutZeros(v)] as const)
      .filter(([, v]) => v !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value;
}
