/**
 * A strategy is what is special about one resource; everything else is the one
 * generic store. Wiring a resource is a strategy plus a few lines in its
 * storage.ts. A subresource (status, scale) is the base strategy spread and
 * overridden, not a new store:
 *
 * @example
 *   export const podStatusStrategy: Strategy = { ...podStrategy, prepareForUpdate: keepAllButStatus, validateUpdate: … };
 */
import type { FieldError } from '../../../machinery/field-errors.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { TableConvertor } from '../../../machinery/table.js';

export interface Strategy<T extends KubeObject = KubeObject> {
  /** Fill in defaults (upstream's SetDefaults_*); runs on every decoded create and update body. */
  defaults(object: T): void;
  /** Before create: reset what a client may not set (status, usually). */
  prepareForCreate(object: T): void;
  /** Before update: carry over what this endpoint may not change (status for the main resource, spec for /status). */
  prepareForUpdate(object: T, old: T): void;
  /** Field errors of a new object; never throws, never mutates. */
  validate(object: T): FieldError[];
  /** Every field error of an update: usually `validate` of the new object plus immutable-field checks. */
  validateUpdate(object: T, old: T): FieldError[];
  /** Warnings returned in the Warning header (deprecated fields, …). */
  warnings?(object: T, old?: T): string[];
  /** Whether a PUT of a missing object creates it (upstream's AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate: boolean;
  /** Whether a PUT without metadata.resourceVersion is accepted (upstream's AllowUnconditionalUpdate). */
  readonly allowUnconditionalUpdate: boolean;
  /** Whether metadata.generation is kept: 1 at create, +1 on each change outside metadata and status. */
  readonly generation: boolean;
  /** Fields a field selector may name, besides metadata.name and metadata.namespace, with their values. */
  readonly selectableFields?: Readonly<Record<string, (object: T) => string>>;
  /** Server-side printing for `kubectl get`. */
  readonly table?: TableConvertor<T>;
}

/** Defaults for the parts most resources share: a spec/status resource with generation. */
export const baseStrategy: Strategy = {
  defaults: () => {},
  prepareForCreate: (object) => {
    if ('status' in object) delete object.status;
  },
  prepareForUpdate: (object, old) => {
    if (old.status === undefined) delete object.status;
    else object.status = old.status;
  },
  validate: () => [],
  validateUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  generation: true,
};

/** A resource with no status and no spec/status split (configmaps, secrets, rbac, …). */
export const plainStrategy: Strategy = {
  ...baseStrategy,
  prepareForCreate: () => {},
  prepareForUpdate: () => {},
  generation: false,
};

/**
 * The /status endpoint of a resource: only `status` changes (plus nothing in
 * metadata that the main endpoint owns), as upstream's status strategies do.
 */
/** The metadata a status write may not change, by default (upstream's ResetObjectMetaForStatus). */
export const STATUS_RESETS_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;
export type StatusResetMetadata = (typeof STATUS_RESETS_METADATA)[number];

/**
 * The strategy of a kind's /status: only status (and the metadata the kind
 * lets a status write change) comes from the request; the rest stays as it
 * was. `resetsMetadata` names what stays (default: every field of upstream's
 * ResetObjectMetaForStatus; the apps kinds keep fewer — a Deployment's status
 * write may change its annotations, as the deployment controller does with the
 * revision). deletionTimestamp and generation always stay.
 */
export function statusStrategy<T extends KubeObject>(
  base: Strategy<T>,
  validateStatus?: (object: T, old: T) => FieldError[],
  resetsMetadata: readonly StatusResetMetadata[] = STATUS_RESETS_METADATA,
): Strategy<T> {
  // Upstream's status strategies give no warnings: the main resource's are about its spec.
  const { warnings: _specWarnings, ...rest } = base;
  return {
    ...rest,
    prepareForUpdate: (object, old) => {
      for (const key of Object.keys(object)) {
        if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') delete object[key];
      }
      for (const [key, value] of Object.entries(old)) {
        if (key !== 'status' && key !== 'metadata') (object as Record<string, unknown>)[key] = value;
      }
      const meta = object.metadata;
      const oldMeta = old.metadata;
      copyOrDelete(meta, oldMeta, 'deletionTimestamp');
      copyOrDelete(meta, oldMeta, 'generation');
      for (const key of resetsMetadata) copyOrDelete(meta, oldMeta, key);
    },
    validateUpdate: validateStatus ?? (() => []),
  };
}

function copyOrDelete<K extends keyof KubeObject['metadata']>(to: KubeObject['metadata'], from: KubeObject['metadata'], key: K): void {
  if (from[key] === undefined) delete to[key];
  else to[key] = from[key];
}
