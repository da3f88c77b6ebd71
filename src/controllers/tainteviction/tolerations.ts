/**
 * Which NoExecute taints a pod tolerates, and for how long: upstream's
 * ToleratesTaint, GetMatchingTolerations and getMinTolerationTime.
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { toleratesTaint } from '../../api/core/v1/toleration.js';

/** Whether every taint is tolerated, and the toleration used for each (the first that matches). */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): { allTolerated: boolean; used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const toleration = tolerations.find((t) => toleratesTaint(t, taint));
    if (toleration === undefined) return { allTolerated: false, used: [] };
    used.push(toleration);
  }
  return { allTolerated: true, used };
}

/**
 * How long the pod may stay: the smallest tolerationSeconds among the
 * tolerations used (0 or less: at once; none used: at once); -1 when none of
 * them has tolerationSeconds (forever).
 */
export function minTolerationMs(used: readonly Toleration[]): number {
  if (used.length === 0) return 0;
  let min = Infinity;
  for (const toleration of used) {
    const seconds = toleration.tolerationSeconds;
    if (seconds === undefined || seconds === null) continue;
    if (seconds <= 0) return 0;
    min = Math.min(min, seconds);
  }
  return min === Infinity ? -1 : min * 1000;
}
