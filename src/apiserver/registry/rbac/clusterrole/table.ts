/** `kubectl get clusterroles`: upstream has no printer for them, so NAME and CREATED AT. */
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { defaultTable } from '../../printing/default-table.js';

export const clusterRoleTable: TableConvertor<ClusterRole> = defaultTable;
