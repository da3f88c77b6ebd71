/** `kubectl get networkpolicies`: POD-SELECTOR (`<none>` for the empty selector, which selects every pod), as upstream's printNetworkPolicy. */
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { formatLabelSelector } from '../../printing/labels.js';
import { age } from '../../printing/timestamps.js';

export const networkPolicyTable: TableConvertor<NetworkPolicy> = {
  columns: [nameColumn(), column('Pod-Selector', 'string', 'The pods this policy applies to.'), ageColumn()],
  cells(np, now) {
    return [np.metadata?.name ?? '', formatLabelSelector(np.spec?.podSelector ?? {}), age(np, now)];
  },
};
