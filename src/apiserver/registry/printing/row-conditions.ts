/**
 * Table row conditions. Upstream marks the row of a finished pod with a
 * `Completed` condition (reason Succeeded or Failed); the TableConvertor
 * interface carries cells only, so whoever assembles rows may use this.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The row conditions upstream attaches to a pod's row (none unless it has finished). */
export function podRowConditions(pod: Pod): TableRowCondition[] {
  switch (pod.status?.phase) {
    case 'Succeeded':
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    case 'Failed':
      return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    default:
      return [];
  }
}
