/** `kubectl get leases`: the HOLDER identity. */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const leaseTable: TableConvertor<Lease> = {
  columns: [nameColumn(), column('Holder', 'string', 'Identity of the current holder of the lease.'), ageColumn()],
  cells(lease, now) {
    return [lease.metadata?.name ?? '', lease.spec?.holderIdentity ?? '', age(lease, now)];
  },
};
