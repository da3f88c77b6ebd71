/**
 * The metadata every API object carries, validated on create and on update as
 * upstream's ValidateObjectMeta and ValidateObjectMetaUpdate do (k8s.io/
 * apimachinery pkg/api/validation/objectmeta.go), with the extra finalizer
 * rule built-in kinds get from pkg/apis/core/validation.
 */

import { FieldPath, forbidden, invalid, required, type FieldError } from '../field-errors.js';
import { goSyntax, goTime } from './go-text.js';
import {
  validateFinalizers,
  validateNoNewFinalizers,
  validateStandardFinalizerName,
} from './finalizers.js';
import { validateAnnotations, validateLabels, type StringMap } from './labels.js';
import { validateManagedFields, type ManagedFieldsEntry } from './managed-fields.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from './messages.js';
import { validateNamespaceName, type ValidateNameFunc } from './names.js';
import { validateOwnerReferences, type OwnerReference } from './owner-references.js';
import { validateNonnegativeField } from './values.js';

/** ObjectMeta as it arrives in JSON: every field optional. */
export interface ObjectMeta {
  readonly name?: string | undefined;
  readonly generateName?: string | undefined;
  readonly namespace?: string | undefined;
  readonly selfLink?: string | undefined;
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly generation?: number | undefined;
  readonly creationTimestamp?: string | null | undefined;
  readonly deletionTimestamp?: string | null | undefined;
  readonly deletionGracePeriodSeconds?: number | null | undefined;
  readonly labels?: StringMap;
  readonly annotations?: StringMap;
  readonly ownerReferences?: readonly OwnerReference[] | null | undefined;
  readonly finalizers?: readonly string[] | null | undefined;
  readonly managedFields?: readonly ManagedFieldsEntry[] | null | undefined;
}

/** How to validate one kind's metadata. */
export interface ObjectMetaOptions {
  /** Whether the kind lives in a namespace: `metadata.namespace` is then required, else forbidden. */
  readonly namespaced: boolean;
  /** The kind's rule for `metadata.name` and `metadata.generateName`. */
  readonly nameValidator: ValidateNameFunc;
  /** Where the metadata sits; `metadata` unless given. */
  readonly path?: FieldPath;
  /**
   * Built-in kinds (true, the default) also require a finalizer without a
   * domain prefix to be a standard one; custom resources (false) do not.
   */
  readonly standardFinalizers?: boolean;
}

/** Options for validating an update. */
export interface ObjectMetaUpdateOptions {
  /** As for ObjectMetaOptions; true unless given. */
  readonly standardFinalizers?: boolean;
}

const METADATA = FieldPath.root('metadata');

/** The paths of the fields validateObjectMeta checks, under one root. */
function metaPaths(path: FieldPath) {
  return {
    generateName: path.child('generateName'),
    name: path.child('name'),
    namespace: path.child('namespace'),
    generation: path.child('generation'),
    labels: path.child('labels'),
    annotations: path.child('annotations'),
    ownerReferences: path.child('ownerReferences'),
    finalizers: path.child('finalizers'),
    managedFields: path.child('managedFields'),
  };
}

/** Built once for the usual root: every create validates metadata (often twice: the store and the kind). */
const METADATA_PATHS = metaPaths(METADATA);

/** One Invalid error per message, added to `errs` (no list is built when there is none). */
function addInvalid(errs: FieldError[], path: FieldPath, value: unknown, messages: readonly string[]): void {
  for (const m of messages) errs.push(invalid(path, value, m));
}

/** Adds `more` to `errs`: most checks find nothing, and then nothing is copied. */
function addAll(errs: FieldError[], more: readonly FieldError[]): void {
  for (const e of more) errs.push(e);
}

function standardFinalizerErrors(meta: ObjectMeta, path: FieldPath): FieldError[] {
  if (meta.finalizers === null || meta.finalizers === undefined || meta.finalizers.length === 0) return [];
  return meta.finalizers.flatMap((f, i) => validateStandardFinalizerName(f, path.child('finalizers').index(i)));
}

/**
 * The metadata of an object being created, after name generation:
 * `metadata.name: Required value: name or generateName is required`,
 * `metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain …`, and
 * so on for namespace, generation, labels, annotations, owner references,
 * finalizers and managed fields.
 */
export function validateObjectMeta(meta: ObjectMeta, options: ObjectMetaOptions): FieldError[] {
  const path = options.path ?? METADATA;
  const paths = path === METADATA ? METADATA_PATHS : metaPaths(path);
  const errs: FieldError[] = [];
  const generateName = meta.generateName ?? '';
  if (generateName !== '') addInvalid(errs, paths.generateName, generateName, options.nameValidator(generateName, true));
  const name = meta.name ?? '';
  if (name === '') errs.push(required(paths.name, 'name or generateName is required'));
  else addInvalid(errs, paths.name, name, options.nameValidator(name, false));

  const namespace = meta.namespace ?? '';
  if (options.namespaced) {
    if (namespace === '') errs.push(required(paths.namespace));
    else addInvalid(errs, paths.namespace, namespace, validateNamespaceName(namespace, false));
  } else if (namespace !== '') {
    errs.push(forbidden(paths.namespace, 'not allowed on this type'));
  }

  addAll(errs, validateNonnegativeField(meta.generation ?? 0, paths.generation));
  addAll(errs, validateLabels(meta.labels, paths.labels));
  addAll(errs, validateAnnotations(meta.annotations, paths.annotations));
  addAll(errs, validateOwnerReferences(meta.ownerReferences, paths.ownerReferences));
  addAll(errs, validateFinalizers(meta.finalizers, paths.finalizers));
  addAll(errs, validateManagedFields(meta.managedFields, paths.managedFields));
  if (options.standardFinalizers !== false) addAll(errs, standardFinalizerErrors(meta, path));
  return errs;
}

const isSet = (timestamp: string | null | undefined): timestamp is string =>
  timestamp !== null && timestamp !== undefined && timestamp !== '';

/** Two timestamps name the same instant (both absent counts as the same zero time). */
function sameTime(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!isSet(a) || !isSet(b)) return isSet(a) === isSet(b);
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return Number.isNaN(ta) || Number.isNaN(tb) ? a === b : ta === tb;
}

function immutable(newValue: unknown, path: FieldPath): FieldError {
  return invalid(path, newValue, FIELD_IMMUTABLE_ERROR_MSG);
}

/**
 * The metadata of an object being updated, against the stored object's:
 * name, namespace, uid, creation and deletion timestamps and grace period are
 * immutable (`metadata.name: Invalid value: "b": field is immutable`), the
 * resource version is required, generation may not go down, finalizers may
 * not be added once deletion has begun, and labels, annotations, owner
 * references and managed fields must be valid.
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta,
  oldMeta: ObjectMeta,
  path: FieldPath = METADATA,
  options: ObjectMetaUpdateOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  if (isSet(oldMeta.deletionTimestamp)) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, path.child('finalizers')));
  }
  if ((newMeta.resourceVersion ?? '') === '') {
    errs.push(invalid(path.child('resourceVersion'), '', 'must be specified for an update'));
  }
  const generation = newMeta.generation ?? 0;
  if (generation < (oldMeta.generation ?? 0)) {
    errs.push(invalid(path.child('generation'), generation, 'must not be decremented'));
  }

  for (const key of ['name', 'namespace', 'uid'] as const) {
    const value = newMeta[key] ?? '';
    if (value !== (oldMeta[key] ?? '')) errs.push(immutable(value, path.child(key)));
  }
  if (!sameTime(newMeta.creationTimestamp, oldMeta.creationTimestamp)) {
    errs.push(immutable(goSyntax(goTime(newMeta.creationTimestamp)), path.child('creationTimestamp')));
  }
  if (!sameTime(newMeta.deletionTimestamp, oldMeta.deletionTimestamp)) {
    const shown = isSet(newMeta.deletionTimestamp) ? goSyntax(goTime(newMeta.deletionTimestamp)) : null;
    errs.push(immutable(shown, path.child('deletionTimestamp')));
  }
  const grace = newMeta.deletionGracePeriodSeconds ?? null;
  if (grace !== (oldMeta.deletionGracePeriodSeconds ?? null)) {
    errs.push(immutable(grace, path.child('deletionGracePeriodSeconds')));
  }

  errs.push(...validateLabels(newMeta.labels, path.child('labels')));
  errs.push(...validateAnnotations(newMeta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateManagedFields(newMeta.managedFields, path.child('managedFields')));
  if (options.standardFinalizers !== false) errs.push(...standardFinalizerErrors(newMeta, path));
  return errs;
}
