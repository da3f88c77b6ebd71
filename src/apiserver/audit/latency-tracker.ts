/**
 * Where the time of one request went, by pipeline stage, as upstream's
 * latency trackers record it for the audit log (annotations
 * `apiserver.latency.k8s.io/<stage>`): authentication, authorization,
 * admission, etcd (storage), serialize-response-object, response-write, and
 * total. A stage can be entered several times (a retried update reads and
 * writes storage twice); its durations add up.
 */
export type LatencyStage = 'authentication' | 'authorization' | 'admission' | 'etcd' | 'serialize-response-object' | 'response-write';

export class LatencyTracker {
  private readonly spent = new Map<LatencyStage, bigint>();

  add(stage: LatencyStage, nanoseconds: bigint): void {
    this.spent.set(stage, (this.spent.get(stage) ?? 0n) + nanoseconds);
  }

  /** Run `work`, adding its duration to `stage` (also when it throws). */
  async time<T>(stage: LatencyStage, work: () => Promise<T>): Promise<T> {
    const start = process.hrtime.bigint();
    try {
      return await work();
    } finally {
      this.add(stage, process.hrtime.bigint() - start);
    }
  }

  entries(): IterableIterator<[LatencyStage, bigint]> {
    return this.spent.entries();
  }
}

/**
 * A duration as Go's time.Duration prints it (the form upstream's audit
 * annotations use): `780ns`, `3.056µs`, `629.994µs`, `12ms`, `4.730661757s`, `1m2.5s`, `2h0m1s`.
 */
export function formatGoDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  if (nanoseconds < 0n) return `-${formatGoDuration(-nanoseconds)}`;
  if (nanoseconds < 1_000n) return `${nanoseconds}ns`;
  if (nanoseconds < 1_000_000n) return `${decimal(nanoseconds, 1_000n, 3)}µs`;
  if (nanoseconds < 1_000_000_000n) return `${decimal(nanoseconds, 1_000_000n, 6)}ms`;
  const hours = nanoseconds / 3_600_000_000_000n;
  const minutes = (nanoseconds / 60_000_000_000n) % 60n;
  const seconds = decimal(nanoseconds % 60_000_000_000n, 1_000_000_000n, 9);
  if (hours > 0n) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** value / unit with the fraction's trailing zeros dropped. */
function decimal(value: bigint, unit: bigint, digits: number): string {
  const whole = value / unit;
  const fraction = value % unit;
  if (fraction === 0n) return `${whole}`;
  return `${whole}.${fraction.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}
