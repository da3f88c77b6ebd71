/**
 * `kubectl get componentstatuses`: STATUS is Healthy when the Healthy
 * condition is True, Unhealthy for any other value, Unknown without one (as upstream's printer).
 */
import type { TableConvertor } from '../../../../machinery/table.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { column, nameColumn } from '../../printing/columns.js';

interface Condition {
  type?: string;
  status?: string;
  message?: string;
  error?: string;
}

export const componentStatusTable: TableConvertor<KubeObject> = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  cells(cs) {
    const conditions = Array.isArray(cs.conditions) ? (cs.conditions as Condition[]) : [];
    const healthy = conditions.find((c) => c.type === 'Healthy');
    const status = healthy === undefined ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
    return [cs.metadata.name ?? '', status, healthy?.message ?? '', healthy?.error ?? ''];
  },
};
