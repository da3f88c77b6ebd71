/**
 * `metadata.managedFields` and field manager names, validated as upstream
 * does (k8s.io/apimachinery pkg/apis/meta/v1/validation).
 */

import { invalid, type FieldError, type FieldPath } from '../field-errors.js';
import { byteLength, isGoPrintable } from './go-text.js';
import { tooLongBytes } from './messages.js';

/** The longest field manager name, in bytes. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** The longest subresource name in a managed fields entry, in bytes. */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** A metav1 ManagedFieldsEntry as it arrives in JSON. */
export interface ManagedFieldsEntry {
  readonly manager?: string | undefined;
  readonly operation?: string | undefined;
  readonly apiVersion?: string | undefined;
  readonly time?: string | null | undefined;
  readonly fieldsType?: string | undefined;
  readonly fieldsV1?: unknown;
  readonly subresource?: string | undefined;
}

/** Go's unicode.IsPrint holds for every character from space to `~`. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * A field manager name (the `fieldManager` query parameter, or an entry's
 * manager): at most 128 bytes, every character printable.
 */
export function validateFieldManager(fieldManager: string, path: FieldPath): FieldError[] {
  // Printable ASCII (the usual manager: `kubectl-client-side-apply`): one byte a character, all printable.
  if (PRINTABLE_ASCII.test(fieldManager)) {
    return fieldManager.length > FIELD_MANAGER_MAX_LENGTH ? [tooLongBytes(path, FIELD_MANAGER_MAX_LENGTH)] : [];
  }
  const errs: FieldError[] = [];
  if (byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLongBytes(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of fieldManager) {
    if (!isGoPrintable(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(path, fieldManager, `invalid character U+${code} (at position ${position})`));
    }
    position += byteLength(ch);
  }
  return errs;
}

/** Each entry: operation `Apply` or `Update`, fields type `FieldsV1` if given, a valid manager and subresource. */
export function validateManagedFields(
  entries: readonly ManagedFieldsEntry[] | null | undefined,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((entry, i) => {
    const at = path.index(i);
    const operation = entry.operation ?? '';
    if (operation !== 'Apply' && operation !== 'Update') {
      errs.push(invalid(at.child('operation'), operation, 'must be `Apply` or `Update`'));
    }
    const fieldsType = entry.fieldsType ?? '';
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') {
      errs.push(invalid(at.child('fieldsType'), fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(entry.manager ?? '', at.child('manager')));
    if (byteLength(entry.subresource ?? '') > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(tooLongBytes(at.child('subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}
