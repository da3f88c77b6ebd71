/**
 * Upstream's slowStartBatch: run `count` calls in batches of 1, 2, 4, …
 * (each batch concurrently), stopping after the first batch with a failure,
 * so that a create that fails for every pod (quota, admission) fails once or
 * twice rather than `count` times. Resolves with how many calls succeeded and
 * the first error, if any.
 */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

export async function slowStartBatch(count: number, call: () => Promise<void>, initialBatchSize = SLOW_START_INITIAL_BATCH_SIZE): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => call()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += results.length - results.filter((r) => r.status === 'rejected').length;
    if (failed !== undefined) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes };
}
