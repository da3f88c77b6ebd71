/**
 * `metadata.finalizers`, validated as upstream does: qualified names, never
 * both `orphan` and `foregroundDeletion`, none added once deletion has begun,
 * and (for built-in kinds) an unqualified name only if it is a standard one.
 */

import { forbidden, invalid, type FieldError, type FieldPath } from '../field-errors.js';
import { goStringSlice, goSyntax } from './go-text.js';
import { isQualifiedName } from './names.js';

/** The finalizer that orphans dependents on delete. */
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';

/** The finalizer that deletes dependents in the foreground. */
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** The namespace controller's finalizer. */
export const FINALIZER_KUBERNETES = 'kubernetes';

/** The finalizer names that need no domain prefix. */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set([
  FINALIZER_KUBERNETES,
  FINALIZER_ORPHAN_DEPENDENTS,
  FINALIZER_DELETE_DEPENDENTS,
]);

/** A finalizer name: a qualified name. */
export function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(path, name, m));
}

/** Every name qualified (errors name the list), and not both orphan and foreground deletion. */
export function validateFinalizers(finalizers: readonly string[] | null | undefined, path: FieldPath): FieldError[] {
  if (finalizers === null || finalizers === undefined || finalizers.length === 0) return [];
  const all = finalizers;
  const errs = all.flatMap((f) => validateFinalizerName(f, path));
  if (all.includes(FINALIZER_ORPHAN_DEPENDENTS) && all.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      invalid(
        path,
        goSyntax(goStringSlice(all)),
        `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`,
      ),
    );
  }
  return errs;
}

/**
 * For built-in kinds (upstream's core ValidateObjectMeta): a name without a
 * domain prefix must be a standard one. The error names the entry,
 * `metadata.finalizers[0]`.
 */
export function validateStandardFinalizerName(name: string, path: FieldPath): FieldError[] {
  if (name.includes('/') || STANDARD_FINALIZERS.has(name)) return [];
  return [invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
}

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Once an object is being deleted, its finalizers may be removed but none added. */
export function validateNoNewFinalizers(
  newFinalizers: readonly string[] | null | undefined,
  oldFinalizers: readonly string[] | null | undefined,
  path: FieldPath,
): FieldError[] {
  const old = new Set(oldFinalizers ?? []);
  const extra = [...new Set(newFinalizers ?? [])].filter((f) => !old.has(f)).sort(byBytes);
  if (extra.length === 0) return [];
  return [
    forbidden(
      path,
      `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
    ),
  ];
}
