/**
 * Upstream's dedupOwnerReferencesAndAddWarning (endpoints/handlers/rest.go):
 * a create, update or patch whose metadata.ownerReferences lists the same
 * reference twice is not refused; the repeats are dropped and the client is
 * warned, once for what it sent and once more should mutating admission add
 * repeats of its own.
 */
import type { KubeObject, OwnerReference } from '../../machinery/meta.js';
import { isDeepStrictEqual } from 'node:util';
import type { RequestContext } from '../server/context.js';
import { addWarnings } from './field-validation.js';

const WARNING = (when: string, uids: readonly string[]): string =>
  `.metadata.ownerReferences contains duplicate entries${when}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests. Duplicate UIDs: ${goQuotedList(uids)}`;

/**
 * Drops repeated owner references from `object` in place (a repeat is a
 * reference equal in every field to one kept before it) and returns the
 * warning to give, or undefined when there were none.
 */
/** When the dedup runs: on what the client sent, or again on what mutating admission made of it (the warning says which). */
export type DedupStage = 'request' | 'afterMutatingAdmission';

export function dedupOwnerReferences(object: KubeObject, stage: DedupStage): string | undefined {
  const refs = object.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return undefined;
  const kept: OwnerReference[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    const uid = String(ref?.uid ?? '');
    // Only a UID seen before needs the full comparison.
    if (!seen.has(uid) || !kept.some((k) => isDeepStrictEqual(k, ref))) {
      seen.add(uid);
      kept.push(ref);
    } else {
      duplicates.push(uid);
    }
  }
  if (duplicates.length === 0) return undefined;
  object.metadata.ownerReferences = kept;
  return WARNING(stage === 'afterMutatingAdmission' ? ' after mutating admission happens' : '', duplicates);
}

/** Go's %q of a []string: ["a" "b"]. */
function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** dedupOwnerReferences, its warning added to the request's (once). */
export function dedupOwnerReferencesAndWarn(ctx: RequestContext, object: KubeObject, stage: DedupStage): void {
  const warning = dedupOwnerReferences(object, stage);
  if (warning !== undefined) addWarnings(ctx, [warning]);
}
