/**
 * NodeResourcesFit's scoring strategies (upstream's least_allocated.go,
 * most_allocated.go, requested_to_capacity_ratio.go), in Go's int64
 * arithmetic: divisions truncate.
 */
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { ResourceScorer, ResourceSpec } from '../helper/resource-allocation.js';
import { MAX_CUSTOM_PRIORITY_SCORE, type UtilizationShapePoint } from './args.js';

const MAX_UTILIZATION = 100;

/** (capacity − requested) / capacity × 100; 0 when over capacity. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** requested / capacity × 100, capped at 100. */
export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  return Math.trunc((Math.min(requested, capacity) * MAX_NODE_SCORE) / capacity);
}

/** Weighted mean of per-resource scores over the resources the node has. */
function weighted(resources: readonly ResourceSpec[], perResource: (requested: number, capacity: number) => number): ResourceScorer {
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const weight = resources[i]!.weight;
      nodeScore += perResource(requested[i]!, allocatable[i]!) * weight;
      weightSum += weight;
    }
    return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
  };
}

export const leastAllocatedScorer = (resources: readonly ResourceSpec[]): ResourceScorer => weighted(resources, leastRequestedScore);
export const mostAllocatedScorer = (resources: readonly ResourceSpec[]): ResourceScorer => weighted(resources, mostRequestedScore);

/** Upstream's BuildBrokenLinearFunction: linear between the points, flat before the first and after the last. */
export function brokenLinearFunction(shape: readonly UtilizationShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      const point = shape[i]!;
      if (p <= point.utilization) {
        if (i === 0) return point.score;
        const prev = shape[i - 1]!;
        return prev.score + Math.trunc(((point.score - prev.score) * (p - prev.utilization)) / (point.utilization - prev.utilization));
      }
    }
    return shape[shape.length - 1]!.score;
  };
}

/** RequestedToCapacityRatio: the shape (scores 0..10 scaled to 0..100) applied to each resource's utilization; weighted mean of the positive ones, rounded. */
export function requestedToCapacityRatioScorer(resources: readonly ResourceSpec[], shape: readonly UtilizationShapePoint[]): ResourceScorer {
  const scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
  const raw = brokenLinearFunction(shape.map((p) => ({ utilization: p.utilization, score: p.score * scale })));
  const resourceScore = (requested: number, capacity: number): number =>
    capacity === 0 || requested > capacity ? raw(MAX_UTILIZATION) : raw(Math.trunc((requested * MAX_UTILIZATION) / capacity));
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const weight = resources[i]!.weight;
      const score = resourceScore(requested[i]!, allocatable[i]!);
      if (score > 0) {
        nodeScore += score * weight;
        weightSum += weight;
      }
    }
    return weightSum === 0 ? 0 : goRound(nodeScore / weightSum);
  };
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}
