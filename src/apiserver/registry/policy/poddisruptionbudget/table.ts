/** `kubectl get poddisruptionbudgets`: MIN AVAILABLE / MAX UNAVAILABLE (`N/A` when unset), ALLOWED DISRUPTIONS. */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

function intOrString(value: number | string | undefined | null): string {
  return value === undefined || value === null ? 'N/A' : String(value);
}

export const podDisruptionBudgetTable: TableConvertor<PodDisruptionBudget> = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', 'Pods that must stay available, as a number or a percentage.'),
    column('Max Unavailable', 'string', 'Pods that may be unavailable, as a number or a percentage.'),
    column('Allowed Disruptions', 'integer', 'Pod disruptions allowed right now.'),
    ageColumn(),
  ],
  cells(pdb, now) {
    return [
      pdb.metadata?.name ?? '',
      intOrString(pdb.spec?.minAvailable),
      intOrString(pdb.spec?.maxUnavailable),
      pdb.status?.disruptionsAllowed ?? 0,
      age(pdb, now),
    ];
  },
};
