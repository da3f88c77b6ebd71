/**
 * How bench:api measures the delivery of one change to 1,000 watchers, the
 * same for the API server (load.ts) and the bare store (bare-store.ts): one
 * change per round, every watcher's delivery counted.
 *
 * The first changes after the watchers open run the watch path cold (JIT
 * compiling in the server and in the reader), so, like the creates' warm-up,
 * they are not counted; and there are more rounds than a p99 needs, so that
 * one slow round of a noisy machine does not decide it alone.
 */
export const WATCH_WARM_ROUNDS = 3;
export const WATCH_ROUNDS = 50;
