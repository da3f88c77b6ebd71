/** `kubectl get serviceaccounts`: the number of listed SECRETS. */
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const serviceAccountTable: TableConvertor<ServiceAccount> = {
  columns: [nameColumn(), column('Secrets', 'string', 'Number of secrets listed in the service account.'), ageColumn()],
  cells(sa, now) {
    return [sa.metadata?.name ?? '', (sa.secrets ?? []).length, age(sa, now)];
  },
};
