/**
 * Where a controller's event handlers put keys: the reconcile loop in
 * production, a recorder in unit tests that drive sync() themselves.
 */
export interface KeyQueue {
  enqueue(key: string): void;
  enqueueAfter(key: string, delayMs: number): void;
}
