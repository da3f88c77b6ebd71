/**
 * events.k8s.io/v1 Events: the same stored objects as core/v1 Events
 * (/registry/events/<namespace>/<name>, core/v1 encoding), served in the
 * events.k8s.io/v1 shape, validated strictly, and selectable by the field
 * labels upstream's events.k8s.io/v1 accepts.
 */
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { eventFieldLabels, eventStrategy } from '../../core/event/strategy.js';
import type { ResourceDefinition } from '../../definition.js';

/** Upstream's events.k8s.io/v1 field label conversion: label → internal selectable field. */
const EVENTS_V1_FIELD_LABELS: Readonly<Record<string, string>> = {
  reason: 'reason',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
  source: 'source',
  type: 'type',
};

export const eventsV1EventDefinition: ResourceDefinition = {
  strategy: eventStrategy({ group: 'events.k8s.io', version: 'v1' }, eventFieldLabels(EVENTS_V1_FIELD_LABELS)),
  validateName: nameIsDNSSubdomain,
};
