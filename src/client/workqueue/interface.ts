/**
 * The work queue's contract (as client-go's workqueue states it):
 * 1. Fair: items are handed out in the order they were added.
 * 2. Stingy: an item added several times before it is processed is processed once.
 * 3. Never concurrent: an item is never handed to two workers at once; added
 *    again while being processed, it is handed out again after done().
 * 4. Rate limited: addRateLimited delays an item by its per-item backoff
 *    (exponential, reset by forget) combined with an overall rate limit.
 * A key is a string (an indexer key, `namespace/name`).
 */
export interface WorkQueue {
  add(key: string): void;
  /** Add after a delay (a later add of the same key wins if earlier). */
  addAfter(key: string, delayMs: number): void;
  /** Add after the key's rate-limited backoff (the retry path). */
  addRateLimited(key: string): void;
  /** Reset the key's backoff (after a success). */
  forget(key: string): void;
  /** How many times addRateLimited has run for the key since its last forget. */
  numRequeues(key: string): number;
  /** The next key to process; undefined once the queue is shut down and drained. */
  get(): Promise<string | undefined>;
  /** Mark the key processed (required after every get that returned it). */
  done(key: string): void;
  shutDown(): void;
  /** Keys waiting (not counting delayed ones nor ones being processed). */
  readonly length: number;
}
