/** `kubectl get roles`: upstream has no printer for them, so NAME and CREATED AT. */
import type { Role } from 'kubernetes-types/rbac/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { defaultTable } from '../../printing/default-table.js';

export const roleTable: TableConvertor<Role> = defaultTable;
