/** CONTAINERS and IMAGES cells of workloads (wide output). */
import type { Container } from 'kubernetes-types/core/v1.js';

/** The names and the images of a pod template's containers, each joined with commas. */
export function containerCells(containers: readonly Container[] | undefined): [names: string, images: string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}
