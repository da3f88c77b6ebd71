/**
 * `kubectl get resourcequotas`: `resource: used/hard` pairs sorted by
 * resource name; `limits.*` resources go to LIMIT, the rest to REQUEST.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { compareStrings } from '../../printing/lists.js';
import { canonicalQuantity } from '../../printing/quantity.js';
import { age } from '../../printing/timestamps.js';

export const resourceQuotaTable: TableConvertor<ResourceQuota> = {
  columns: [
    nameColumn(),
    column('Request', 'string', 'Used and hard amounts of each resource other than limits.'),
    column('Limit', 'string', 'Used and hard amounts of each limits.* resource.'),
    ageColumn(),
  ],
  cells(quota, now) {
    const hard = quota.status?.hard ?? {};
    const used = quota.status?.used ?? {};
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort(compareStrings)) {
      const pieces = resource.split('.');
      const target = pieces.length > 1 && pieces[0] === 'limits' ? limits : requests;
      const usedText = used[resource] === undefined ? '0' : canonicalQuantity(used[resource]);
      target.push(`${resource}: ${usedText}/${canonicalQuantity(hard[resource] ?? '0')}`);
    }
    return [quota.metadata?.name ?? '', requests.join(', '), limits.join(', '), age(quota, now)];
  },
};
