/**
 * The Event strategy (upstream's pkg/registry/core/event): one strategy over
 * the internal form for both core/v1 and events.k8s.io/v1, differing only in
 * the request version validation is run for and in the field labels each
 * version accepts. Events are created and replaced freely: PUT creates, and
 * needs no resourceVersion.
 */
import type { InternalEvent } from '../../../../api/events/internal.js';
import { validateEventCreate, validateEventUpdate } from '../../../../api/events/validation.js';
import type { GroupVersion } from '../../../../api/scheme.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { plainStrategy, type Strategy } from '../../generic/strategy.js';
import { eventTable } from './table.js';

type Field = (event: InternalEvent) => string;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The internal selectable fields (upstream's EventToSelectableFields), besides metadata.name and metadata.namespace. */
export const internalEventFields: Readonly<Record<string, Field>> = {
  'involvedObject.kind': (e) => text(e.involvedObject?.kind),
  'involvedObject.namespace': (e) => text(e.involvedObject?.namespace),
  'involvedObject.name': (e) => text(e.involvedObject?.name),
  'involvedObject.uid': (e) => text(e.involvedObject?.uid),
  'involvedObject.apiVersion': (e) => text(e.involvedObject?.apiVersion),
  'involvedObject.resourceVersion': (e) => text(e.involvedObject?.resourceVersion),
  'involvedObject.fieldPath': (e) => text(e.involvedObject?.fieldPath),
  reason: (e) => text(e.reason),
  reportingComponent: (e) => text(e.reportingController),
  source: (e) => text(e.source?.component) || text(e.reportingController),
  type: (e) => text(e.type),
};

/**
 * A version's field labels: each label it accepts (upstream's field label
 * conversion) and the internal field it names.
 */
export function eventFieldLabels(labels: Readonly<Record<string, string>>): Readonly<Record<string, Field>> {
  return Object.fromEntries(Object.entries(labels).map(([label, internal]) => [label, internalEventFields[internal]!]));
}

/** core/v1's labels are the internal ones. */
export const coreV1EventFields = eventFieldLabels(Object.fromEntries(Object.keys(internalEventFields).map((k) => [k, k])));

/** The strategy of Events requested in `requestVersion`, selectable by `fields`. */
export function eventStrategy(requestVersion: GroupVersion, fields: Readonly<Record<string, Field>>): Strategy {
  const strategy: Strategy<InternalEvent> = {
    ...(plainStrategy as Strategy<InternalEvent>),
    validate: (event) => validateEventCreate(event, requestVersion),
    validateUpdate: (event, old) => validateEventUpdate(event, old, requestVersion),
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    selectableFields: fields,
    table: eventTable,
  };
  return strategy as unknown as Strategy<KubeObject>;
}

