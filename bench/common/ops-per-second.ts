/** Operations per second of `op`, run in batches of 100 until `ms` have passed (after a short warm-up). */
export function opsPerSecond(op: () => unknown, ms: number): number {
  const warmUntil = performance.now() + Math.min(200, ms / 5);
  while (performance.now() < warmUntil) op();
  let count = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) op();
    count += 100;
    now = performance.now();
  }
  return (count * 1000) / (now - start);
}
