/** `kubectl get clusterrolebindings`: ROLE as `ClusterRole/name`; users, groups and service accounts when wide. */
import type { ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn, wideColumn } from '../../printing/columns.js';
import { subjectCells } from '../../printing/subjects.js';
import { age } from '../../printing/timestamps.js';

export const clusterRoleBindingTable: TableConvertor<ClusterRoleBinding> = {
  columns: [
    nameColumn(),
    column('Role', 'string', 'Cluster role the binding grants, as Kind/name.'),
    ageColumn(),
    wideColumn('Users', 'string', 'Users the binding applies to.'),
    wideColumn('Groups', 'string', 'Groups the binding applies to.'),
    wideColumn('ServiceAccounts', 'string', 'Service accounts the binding applies to, as namespace/name.'),
  ],
  cells(binding, now) {
    const { users, groups, serviceAccounts } = subjectCells(binding.subjects);
    const role = `${binding.roleRef?.kind ?? ''}/${binding.roleRef?.name ?? ''}`;
    return [binding.metadata?.name ?? '', role, age(binding, now), users, groups, serviceAccounts];
  },
};
