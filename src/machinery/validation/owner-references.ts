/**
 * `metadata.ownerReferences`, validated as upstream does: each reference names
 * its owner fully, no Event owns anything, and at most one is the controller.
 * Errors name the list (`metadata.ownerReferences.uid`), not the entry, as
 * upstream's do.
 */

import { invalid, type FieldError, type FieldPath } from '../field-errors.js';
import { goQuote, goSyntax } from './go-text.js';

/** A metav1 OwnerReference as it arrives in JSON. */
export interface OwnerReference {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly name?: string | undefined;
  readonly uid?: string | undefined;
  readonly controller?: boolean | null | undefined;
  readonly blockOwnerDeletion?: boolean | null | undefined;
}

interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Upstream's schema.FromAPIVersionAndKind: an unparsable apiVersion leaves group and version empty. */
function groupVersionKind(apiVersion: string, kind: string): GroupVersionKind {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion, kind };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]!, kind };
  return { group: '', version: '', kind };
}

/** Kinds that may never own an object (upstream's BannedOwners). */
const BANNED_OWNERS: readonly GroupVersionKind[] = [{ group: '', version: 'v1', kind: 'Event' }];

// Go prints a set pointer as its address; no address exists here, so a fixed one stands in.
const goBoolPointer = (b: boolean | null | undefined): string =>
  b === null || b === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';

/** A reference as upstream's messages print it (`%#v` of the Go struct). */
function goOwnerReference(ref: OwnerReference): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(ref.apiVersion ?? '')}, Kind:${goQuote(ref.kind ?? '')}, ` +
    `Name:${goQuote(ref.name ?? '')}, UID:${goQuote(ref.uid ?? '')}, ` +
    `Controller:${goBoolPointer(ref.controller)}, BlockOwnerDeletion:${goBoolPointer(ref.blockOwnerDeletion)}}`
  );
}

function validateOwnerReference(ref: OwnerReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const gvk = groupVersionKind(apiVersion, ref.kind ?? '');
  if (gvk.version === '') errs.push(invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (gvk.kind === '') errs.push(invalid(path.child('kind'), gvk.kind, 'kind must not be empty'));
  if ((ref.name ?? '') === '') errs.push(invalid(path.child('name'), '', 'name must not be empty'));
  if ((ref.uid ?? '') === '') errs.push(invalid(path.child('uid'), '', 'uid must not be empty'));
  if (BANNED_OWNERS.some((b) => b.group === gvk.group && b.version === gvk.version && b.kind === gvk.kind)) {
    errs.push(
      invalid(
        path,
        goSyntax(goOwnerReference(ref)),
        `${gvk.group}/${gvk.version}, Kind=${gvk.kind} is disallowed from being an owner`,
      ),
    );
  }
  return errs;
}

/** Every reference complete and allowed, and no more than one with `controller: true`. */
export function validateOwnerReferences(refs: readonly OwnerReference[] | null | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const all = refs ?? [];
  let firstController = '';
  for (const ref of all) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller !== true) continue;
    const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
    if (firstController === '') {
      firstController = current;
      continue;
    }
    errs.push(
      invalid(
        path,
        goSyntax(`[]v1.OwnerReference{${all.map(goOwnerReference).join(', ')}}`),
        `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
      ),
    );
  }
  return errs;
}
