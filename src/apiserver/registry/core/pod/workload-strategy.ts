/**
 * Building a strategy from a kind's pure defaults and validation functions
 * (src/api/<group>/<version>/): the shape shared by pods, pod templates and
 * the workload controllers (deployments, replica sets, stateful sets, daemon
 * sets, controller revisions, jobs, cron jobs).
 */
import type { FieldError } from '../../../../machinery/field-errors.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import type { ValidateNameFunc } from '../../../../machinery/validation/names.js';
import { baseStrategy, plainStrategy, statusStrategy, type StatusResetMetadata, type Strategy } from '../../generic/strategy.js';

export interface WorkloadStrategyOptions<T> {
  /** Whether the kind has a spec/status split (status kept on update, reset on create). */
  readonly hasStatus: boolean;
  /** What `status` is on create: upstream's zero status as it serializes (`{}`, `{replicas: 0}`, …). */
  readonly initialStatus?: (object: T) => Record<string, unknown>;
  readonly generation: boolean;
  readonly validateName: ValidateNameFunc;
  readonly defaults: (object: T) => void;
  readonly prepareForCreate?: (object: T) => void;
  readonly validate: (object: T) => FieldError[];
  readonly validateUpdate: (object: T, old: T) => FieldError[];
  readonly validateStatusUpdate?: (object: T, old: T) => FieldError[];
  /** The metadata a /status write may not change (default: upstream's ResetObjectMetaForStatus; see statusStrategy). */
  readonly statusResetsMetadata?: readonly StatusResetMetadata[];
  readonly selectableFields?: Readonly<Record<string, (object: KubeObject) => string>>;
  readonly table?: TableConvertor<never>;
}

/**
 * An update without metadata.resourceVersion is unconditional (the generic
 * store allows it, as upstream's does): upstream validates it with the stored
 * object's version filled in, so the new object is shown to validation so.
 */
export function withStoredVersion<T extends KubeObject>(object: T, old: T): T {
  const rv = object.metadata.resourceVersion;
  if (rv !== undefined && rv !== '') return object;
  return { ...object, metadata: { ...object.metadata, resourceVersion: old.metadata.resourceVersion } };
}

export function newWorkloadStrategy<T>(options: WorkloadStrategyOptions<T>): { strategy: Strategy; statusStrategy?: Strategy } {
  const as = (o: KubeObject): T => o as unknown as T;
  const base = options.hasStatus ? baseStrategy : plainStrategy;
  const strategy: Strategy = {
    ...base,
    generation: options.generation,
    defaults: (o) => options.defaults(as(o)),
    prepareForCreate: (o) => {
      base.prepareForCreate(o);
      if (options.initialStatus !== undefined) o.status = options.initialStatus(as(o));
      options.prepareForCreate?.(as(o));
    },
    validate: (o) => options.validate(as(o)),
    validateUpdate: (o, old) => options.validateUpdate(as(withStoredVersion(o, old)), as(old)),
    ...(options.selectableFields !== undefined ? { selectableFields: options.selectableFields } : {}),
    ...(options.table !== undefined ? { table: options.table as unknown as TableConvertor<KubeObject> } : {}),
  };
  if (!options.hasStatus) return { strategy };
  const validateStatus = options.validateStatusUpdate;
  return {
    strategy,
    statusStrategy: statusStrategy(
      strategy,
      validateStatus === undefined ? undefined : (o, old) => validateStatus(as(withStoredVersion(o, old)), as(old)),
      options.statusResetsMetadata,
    ),
  };
}
