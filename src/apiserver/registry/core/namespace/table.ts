/** `kubectl get namespaces`: STATUS is the phase (Active, Terminating). */
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const namespaceTable: TableConvertor<Namespace> = {
  columns: [nameColumn(), column('Status', 'string', 'Phase of the namespace: Active or Terminating.'), ageColumn()],
  cells(ns, now) {
    // Defaulting makes a namespace without a phase Active.
    return [ns.metadata?.name ?? '', ns.status?.phase || 'Active', age(ns, now)];
  },
};
