/**
 * A small seedable pseudo-random generator (mulberry32) for randomized tests:
 * the same seed gives the same sequence, so a failure is replayed from the
 * seed it prints.
 */
export interface Prng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function newPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    seed: seed >>> 0,
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)]!;
    },
  };
}

/** The seed of a randomized test: `K8TS_TEST_SEED` when set (to replay a failure), else `fallback`. */
export function testSeed(fallback: number): number {
  const fromEnv = process.env.K8TS_TEST_SEED;
  if (fromEnv === undefined || fromEnv === '') return fallback;
  const seed = Number(fromEnv);
  if (!Number.isInteger(seed)) throw new Error(`K8TS_TEST_SEED must be an integer, not ${JSON.stringify(fromEnv)}`);
  return seed;
}
