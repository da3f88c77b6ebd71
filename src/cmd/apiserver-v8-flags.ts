/**
 * The V8 flags an API server process runs with: `k8ts server` starts its
 * apiserver component with them, and `k8ts apiserver --workers N` starts its
 * workers with them (besides the primary's own flags).
 *
 * --max-semi-space-size=32 (MiB; V8's default on 64-bit is 16): the young
 * generation, where every request's short-lived objects are born, may grow to
 * twice its default size. A create allocates its decoded body, the defaulted
 * and validated object, managedFields, the encoded bytes and the response, all
 * dead once the answer is written; with a larger young generation V8 scavenges
 * half as often, and fewer of those objects are still alive (in flight) at a
 * scavenge, so fewer are copied. In interleaved pairs of runs of 64
 * concurrent creates against `k8ts apiserver --workers 2` (8 of 9 pairs on
 * 3 December 2026) the API server spent 5-15% less CPU per create. 64 MiB
 * was no better than 32. The price is up to 32 MiB more heap per process,
 * reached only under a sustained allocation rate (V8 grows the young
 * generation from its minimum when the survival rate asks for it).
 */
export const API_SERVER_V8_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * `given` with each of `flags` appended whose name (the part before `=`) it
 * does not already set: flags the process was started with win.
 *
 * @example
 *   withFlags(['--max-semi-space-size=64'], API_SERVER_V8_FLAGS) // → ['--max-semi-space-size=64']
 */
export function withFlags(given: readonly string[], flags: readonly string[]): string[] {
  const name = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-');
  const set = new Set(given.map(name));
  return [...given, ...flags.filter((flag) => !set.has(name(flag)))];
}
