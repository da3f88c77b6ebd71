/**
 * Upstream's helper.DefaultNormalizeScore: scale raw scores so that the
 * highest becomes `maxPriority` (integer division, as Go's int64), and with
 * `reverse` turn "more is worse" counts (e.g. intolerable taints) into
 * "more is better" scores. All zeros stay zeros, or become maxPriority when reversed.
 */
import type { NodeScore } from '../../framework/interfaces.js';

export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): void {
  let max = 0;
  for (const s of scores) if (s.score > max) max = s.score;
  if (max === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return;
  }
  for (const s of scores) {
    const scaled = Math.trunc((maxPriority * s.score) / max);
    s.score = reverse ? maxPriority - scaled : scaled;
  }
}
