/**
 * The port a probe names, as upstream's probe.ResolveContainerPort: a number,
 * or the name of one of the container's ports, or (a last resort) a number
 * written as a string. Errors carry upstream's text, which users see in the
 * "probe errored" event (`strconv.Atoi: parsing "http": invalid syntax`).
 */
import type { ContainerSpec } from '../types.js';
import { goQuote } from './go-format.js';
import { ProbeError } from './probe-outcome.js';

/** Go's strconv.Atoi on a base-10 string (an optional sign, then digits). */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new ProbeError(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new ProbeError(`strconv.Atoi: parsing ${goQuote(text)}: value out of range`);
  return n;
}

export function resolveContainerPort(port: number | string, container: ContainerSpec): number {
  let resolved: number;
  if (typeof port === 'number') {
    resolved = port;
  } else {
    const named = container.ports?.find((p) => p.name === port);
    resolved = named !== undefined ? named.containerPort : atoi(port);
  }
  if (Number.isInteger(resolved) && resolved > 0 && resolved < 65536) return resolved;
  throw new ProbeError(`invalid port number: ${resolved}`);
}
