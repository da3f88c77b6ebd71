/** The load shape every benchmark uses: N clients, each sending its next request when the last is answered. */
import { percentile } from './stats.js';

export interface ClosedLoopOptions {
  readonly concurrency: number;
  /** The measured window. */
  readonly durationMs: number;
  /** Requests before the window (connections open, code compiled) are not measured. */
  readonly warmupMs?: number;
}

export interface ClosedLoopResult {
  readonly count: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** Run `op(client, n)` from `concurrency` clients until the window closes; latencies in milliseconds. */
export async function closedLoop(options: ClosedLoopOptions, op: (client: number, n: number) => Promise<unknown>): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  const start = performance.now() + (options.warmupMs ?? 0);
  const deadline = start + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const t = performance.now();
        await op(client, n);
        if (t >= start) latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { count: latencies.length, seconds, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}
