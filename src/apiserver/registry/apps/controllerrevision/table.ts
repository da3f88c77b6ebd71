/** `kubectl get controllerrevisions`: CONTROLLER as `kind.group/name`, and REVISION. */
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { NONE } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → ''); throws as upstream does on a malformed one. */
function groupOf(apiVersion: string): string {
  if (apiVersion === '' || apiVersion === '/') return '';
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0] ?? '';
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/** `daemonset.apps/web` for the controlling owner, or `<none>`. */
function controllerName(revision: ControllerRevision): string {
  const owner = revision.metadata?.ownerReferences?.find((ref) => ref.controller === true);
  if (owner === undefined) return NONE;
  const group = groupOf(owner.apiVersion);
  const groupKind = group === '' ? owner.kind : `${owner.kind}.${group}`;
  if (groupKind === '') return owner.name;
  return `${groupKind.toLowerCase()}/${owner.name}`;
}

export const controllerRevisionTable: TableConvertor<ControllerRevision> = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Object that owns the revision, as kind.group/name.'),
    column('Revision', 'string', 'Revision number of the state this object records.'),
    ageColumn(),
  ],
  cells(revision, now) {
    return [revision.metadata?.name ?? '', controllerName(revision), revision.revision ?? 0, age(revision, now)];
  },
};
