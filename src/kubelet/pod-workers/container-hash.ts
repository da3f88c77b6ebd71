/**
 * The hash the kubelet records on each container (annotation
 * io.kubernetes.container.hash), as upstream's HashContainer: FNV-1a (32 bit)
 * of the container's spec in a canonical JSON form, in hex. A running
 * container whose spec hashes differently (a new image) is restarted.
 * Resources are left out, as upstream leaves them out for in-place resize.
 *
 * The kubelet never changes a pod object it was given (a changed pod comes
 * as a new object from its source), so the hash is kept per container object
 * and computed once, not on every sync and every start.
 */
import type { ContainerSpec } from '../types.js';

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const hashes = new WeakMap<ContainerSpec, string>();

export function hashContainer(container: ContainerSpec): string {
  let hash = hashes.get(container);
  if (hash === undefined) {
    const { resources: _resources, ...rest } = container;
    hash = fnv32a(canonicalJson(rest)).toString(16);
    hashes.set(container, hash);
  }
  return hash;
}
