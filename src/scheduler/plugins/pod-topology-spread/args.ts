/**
 * PodTopologySpreadArgs (kubescheduler.config.k8s.io/v1), defaulted and
 * validated as upstream: defaultingType System (the built-in constraints:
 * hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway) unless List,
 * which uses defaultConstraints (then required to be set only with List).
 */
import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { duplicate, FieldPath, forbidden, formatFieldErrors, invalid, notSupported, required, type FieldError } from '../../../machinery/field-errors.js';
import { validateLabelName } from '../../../machinery/validation/labels.js';

export type DefaultingType = 'System' | 'List';

export interface PodTopologySpreadArgs {
  readonly defaultConstraints: readonly TopologySpreadConstraint[];
  readonly defaultingType: DefaultingType;
}

export const ARGS_KIND = 'PodTopologySpreadArgs';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

/** Upstream's systemDefaultConstraints. */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraint[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'defaultConstraints', 'defaultingType']);
const CONSTRAINT_FIELDS = new Set(['maxSkew', 'topologyKey', 'whenUnsatisfiable', 'labelSelector', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys']);

function decodeError(message: string): Error {
  return new Error(`decoding ${ARGS_KIND}: ${message}`);
}

function decodeConstraints(raw: unknown): TopologySpreadConstraint[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw decodeError('defaultConstraints: must be a list');
  return raw.map((c: unknown, i) => {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) throw decodeError(`defaultConstraints[${i}]: must be an object`);
    const object = c as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      if (!CONSTRAINT_FIELDS.has(key)) throw decodeError(`strict decoding error: unknown field "defaultConstraints[${i}].${key}"`);
    }
    if (object.maxSkew !== undefined && (typeof object.maxSkew !== 'number' || !Number.isInteger(object.maxSkew))) {
      throw decodeError(`defaultConstraints[${i}].maxSkew: must be an integer, got ${JSON.stringify(object.maxSkew)}`);
    }
    for (const key of ['topologyKey', 'whenUnsatisfiable'] as const) {
      if (object[key] !== undefined && typeof object[key] !== 'string') throw decodeError(`defaultConstraints[${i}].${key}: must be a string, got ${JSON.stringify(object[key])}`);
    }
    return { maxSkew: 0, topologyKey: '', whenUnsatisfiable: '', ...object } as TopologySpreadConstraint;
  });
}

function validateConstraint(c: TopologySpreadConstraint, path: FieldPath, all: readonly TopologySpreadConstraint[], index: number, listPath: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (c.maxSkew <= 0) errors.push(invalid(path.child('maxSkew'), c.maxSkew, 'not in valid range (0, inf)'));
  if (c.topologyKey === '') errors.push(required(path.child('topologyKey'), 'can not be empty'));
  else errors.push(...validateLabelName(c.topologyKey, path.child('topologyKey')));
  if (c.whenUnsatisfiable === '') errors.push(required(path.child('whenUnsatisfiable'), 'can not be empty'));
  else if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
    errors.push(notSupported(path.child('whenUnsatisfiable'), c.whenUnsatisfiable, ['DoNotSchedule', 'ScheduleAnyway']));
  }
  if (c.labelSelector !== undefined && c.labelSelector !== null) {
    errors.push(forbidden(path.child('labelSelector'), 'constraint must not define a selector, as they deduced for each pod'));
  }
  const earlier = all.slice(0, index).find((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable);
  if (earlier !== undefined) errors.push(duplicate(listPath.index(index), `{${c.topologyKey}, ${c.whenUnsatisfiable}}`));
  return errors;
}

/** Defaults and validates raw args (undefined means all defaults); throws an Error with upstream's message for bad args. */
export function parsePodTopologySpreadArgs(raw: unknown): PodTopologySpreadArgs {
  if (raw === undefined || raw === null) return { defaultConstraints: [], defaultingType: 'System' };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`want args to be of type ${ARGS_KIND}, got ${Array.isArray(raw) ? 'array' : typeof raw}`);
  const object = raw as Record<string, unknown>;
  if (object.kind !== undefined && object.kind !== ARGS_KIND) throw new Error(`want args to be of type ${ARGS_KIND}, got ${String(object.kind)}`);
  for (const key of Object.keys(object)) {
    if (!KNOWN_FIELDS.has(key)) throw decodeError(`strict decoding error: unknown field "${key}"`);
  }
  const defaultConstraints = decodeConstraints(object.defaultConstraints);
  const defaultingType = object.defaultingType ?? 'System';
  if (typeof defaultingType !== 'string') throw decodeError(`defaultingType: must be a string, got ${JSON.stringify(defaultingType)}`);

  const errors: FieldError[] = [];
  const typePath = FieldPath.root('defaultingType');
  if (defaultingType !== 'System' && defaultingType !== 'List') errors.push(notSupported(typePath, defaultingType, ['System', 'List']));
  else if (defaultingType === 'System' && defaultConstraints.length > 0) errors.push(invalid(typePath, defaultingType, 'when .defaultConstraints are not empty'));
  const listPath = FieldPath.root('defaultConstraints');
  defaultConstraints.forEach((c, i) => errors.push(...validateConstraint(c, listPath.index(i), defaultConstraints, i, listPath)));
  if (errors.length > 0) throw new Error(formatFieldErrors(errors));
  return { defaultConstraints, defaultingType: defaultingType as DefaultingType };
}
