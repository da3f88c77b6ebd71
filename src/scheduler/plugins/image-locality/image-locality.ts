/**
 * ImageLocality: prefers nodes that already hold the pod's container images,
 * by their total size, each scaled by the share of nodes that hold it (so
 * that an image present everywhere does not pull every pod to the same
 * nodes), clamped between 23 MB and 1000 MB per container and mapped to 0..100.
 */
import type { CycleState } from '../../framework/cycle-state.js';
import { MAX_NODE_SCORE, type Handle, type PluginFactory, type ScorePlugin } from '../../framework/interfaces.js';
import type { ImageStateSummary, NodeInfo } from '../../framework/node-info.js';
import type { Status } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';

export const NAME = 'ImageLocality';
const IMAGES_KEY = `Images${NAME}`;

const MB = 1024 * 1024;
/** Below this total, a node scores 0 (the images are small enough to pull anyway). */
export const MIN_THRESHOLD = 23 * MB;
/** Per container: above this total, a node scores 100. */
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** An image name as nodes report it: `:latest` added when there is no tag. */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

/** The image's size, scaled by the share of the cluster's nodes that hold it. */
export function scaledImageScore(image: ImageStateSummary, totalNumNodes: number): number {
  const spread = image.numNodes / totalNumNodes;
  return Math.trunc(image.size * spread);
}

/** The sum of scaled image scores mapped to 0..100 between the thresholds. */
export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
  let sum = sumScores;
  if (sum < MIN_THRESHOLD) sum = MIN_THRESHOLD;
  else if (sum > maxThreshold) sum = maxThreshold;
  const score = Math.trunc((MAX_NODE_SCORE * (sum - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
  return score === 0 ? 0 : score; // no -0
}

/** The pod's images (init containers, then containers), normalized once per cycle. */
function podImages(pod: Pod): string[] {
  const images: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) images.push(normalizedImageName(c.image ?? ''));
  for (const c of pod.spec?.containers ?? []) images.push(normalizedImageName(c.image ?? ''));
  return images;
}

export class ImageLocality implements ScorePlugin {
  readonly name = NAME;

  constructor(private readonly handle: Handle) {}

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    let images = state.read<string[]>(IMAGES_KEY);
    if (images === undefined) state.write(IMAGES_KEY, (images = podImages(pod)));
    // A node that reports no images scores as a sum of 0 (most nodes, every node without a kubelet).
    if (nodeInfo.imageStates.size === 0) return calculatePriority(0, images.length);
    const totalNumNodes = this.handle.snapshot.nodeInfos().list().length;
    let sum = 0;
    if (totalNumNodes > 0) {
      for (const image of images) {
        const state = nodeInfo.imageStates.get(image);
        if (state !== undefined) sum += scaledImageScore(state, totalNumNodes);
      }
    }
    return calculatePriority(sum, images.length);
  }

  scoreExtensions(): undefined {
    return undefined;
  }
}

export const newImageLocality: PluginFactory = (_args, handle) => new ImageLocality(handle);
