/**
 * Choosing the node to preempt on among the candidates (upstream's
 * pickOneNodeForPreemption). Score functions are applied in order; the first
 * that leaves a single best node decides, ties go to the next one, and the
 * first remaining node wins in the end.
 */
import type { Victims } from './candidate.js';
import { podPriority, podStartTime } from './pod-priority.js';

/** A higher score is better. */
export type NodeScoreFunc = (nodeName: string) => number;

/** 2^31: added to every priority so that sums of negative priorities still favour fewer pods. */
const PRIORITY_OFFSET = 2 ** 31;

/** The earliest start time among the highest-priority victims (upstream's GetEarliestPodStartTime); undefined for no victims. */
export function earliestStartTimeOfHighestPriorityVictims(victims: Victims, now: number): number | undefined {
  const [first] = victims.pods;
  if (first === undefined) return undefined;
  let maxPriority = podPriority(first);
  let earliest = podStartTime(first, now);
  for (const pod of victims.pods) {
    const priority = podPriority(pod);
    if (priority === maxPriority) {
      earliest = Math.min(earliest, podStartTime(pod, now));
    } else if (priority > maxPriority) {
      maxPriority = priority;
      earliest = podStartTime(pod, now);
    }
  }
  return earliest;
}

/**
 * Upstream's default criteria, in order: fewest PDB violations; lowest
 * priority of the most important victim; smallest sum of victim priorities;
 * fewest victims; latest start time of the most important victims.
 * Victims must be ordered from the most to the least important.
 */
export function defaultNodeScoreFuncs(nodesToVictims: ReadonlyMap<string, Victims>, now: number): NodeScoreFunc[] {
  const victimsOf = (node: string): Victims => nodesToVictims.get(node) ?? { pods: [], numPDBViolations: 0 };
  return [
    (node) => -victimsOf(node).numPDBViolations,
    (node) => {
      const [highest] = victimsOf(node).pods;
      return highest === undefined ? 0 : -podPriority(highest);
    },
    (node) => -victimsOf(node).pods.reduce((sum, pod) => sum + podPriority(pod) + PRIORITY_OFFSET, 0),
    (node) => -victimsOf(node).pods.length,
    (node) => earliestStartTimeOfHighestPriorityVictims(victimsOf(node), now) ?? Number.MIN_SAFE_INTEGER,
  ];
}

/**
 * The node to preempt on, '' when there is none. Candidates are considered in
 * the map's insertion order, which breaks the final tie.
 */
export function pickOneNodeForPreemption(
  nodesToVictims: ReadonlyMap<string, Victims>,
  options: { readonly scoreFuncs?: readonly NodeScoreFunc[] | undefined; readonly now?: number } = {},
): string {
  if (nodesToVictims.size === 0) return '';
  const now = options.now ?? Date.now();
  const scoreFuncs = options.scoreFuncs !== undefined && options.scoreFuncs.length > 0 ? options.scoreFuncs : defaultNodeScoreFuncs(nodesToVictims, now);
  let remaining = [...nodesToVictims.keys()];
  for (const score of scoreFuncs) {
    let best: string[] = [];
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const node of remaining) {
      const s = score(node);
      if (s > bestScore) {
        bestScore = s;
        best = [node];
      } else if (s === bestScore) {
        best.push(node);
      }
    }
    if (best.length === 1) return best[0]!;
    remaining = best;
  }
  return remaining[0]!;
}
