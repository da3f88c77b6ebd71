/**
 * Apply conflicts: fields another manager owns with a different value. The
 * 409 carries one FieldManagerConflict cause per field, and upstream's
 * message (kubectl prints it as it comes).
 */
import { StatusError } from '../../machinery/status.js';
import { pathString, type Path } from './field-set.js';
import type { ManagerIdentity } from './managed-fields.js';

export interface Conflict {
  readonly manager: ManagerIdentity;
  readonly path: Path;
}

export class ApplyConflicts extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
  }
}

/** `"kubectl-client-side-apply" using v1`, `"x" with subresource "status"`: how upstream names a manager. */
export function printManager(id: ManagerIdentity): string {
  let out = JSON.stringify(id.manager);
  if (id.subresource !== '') out += ` with subresource ${JSON.stringify(id.subresource)}`;
  if (id.operation === 'Update') out += ` using ${id.apiVersion}`;
  return out;
}

export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const name = printManager(c.manager);
    const paths = byManager.get(name) ?? [];
    paths.push(pathString(c.path));
    byManager.set(name, paths);
  }
  const lines: string[] = [];
  // Upstream sorts by the manager identifier, which starts with the manager name.
  for (const [name, paths] of [...byManager.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    lines.push(`conflicts with ${name}:`);
    for (const p of paths) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

export function conflictError(conflicts: readonly Conflict[]): StatusError {
  return new StatusError({
    code: 409,
    reason: 'Conflict',
    message: conflictMessage(conflicts),
    details: {
      causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) })),
    },
  });
}
