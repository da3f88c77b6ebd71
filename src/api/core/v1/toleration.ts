/**
 * Whether a toleration tolerates a taint (upstream's Toleration.ToleratesTaint),
 * shared by everything that reads taints: the DaemonSet controller, taint
 * eviction, and the scheduler to come.
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';

/** Effect and key must match when the toleration sets them; Equal (the default) compares values, Exists does not. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}
