/**
 * The worker loop every controller shares, so that retries never live in
 * business logic: a controller gives a level-based reconcile function of a
 * key; the loop takes keys from a work queue with N workers, and
 * - on success forgets the key's backoff (and re-adds it after requeueAfterMs
 *   when the reconcile asks; 0 means again at once, through the key's growing
 *   backoff);
 * - on an error retries the key with its rate-limited backoff;
 * - on a {@link TerminalError} logs it and drops the key until its next event.
 * A key is never reconciled by two workers at once (the queue's contract).
 *
 * @example
 *   const loop = startReconcileLoop(ctx, { name: 'replicaset', workers: 5, reconcile: (key) => syncReplicaSet(key) });
 *   informer.addEventHandler({ onAdd: (rs) => loop.enqueue(objectKey(rs)) });
 */
import type { WorkQueue } from '../client/workqueue/interface.js';
import { StatusError } from '../machinery/status.js';
import { RateLimitingQueue } from '../client/workqueue/rate-limiting-queue.js';
import type { ControllerContext } from './context.js';

export interface ReconcileResult {
  /** Reconcile the key again after this long even if nothing changes (a timer the controller needs). */
  readonly requeueAfterMs?: number;
}

export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

/** An error retrying cannot mend (bad data): the loop logs it and waits for the key's next change. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

export const terminalError = (message: string, cause?: unknown): TerminalError =>
  new TerminalError(message, cause === undefined ? undefined : { cause });

/** An expected condition that a retry mends (an informer cache still behind the API): its retries are logged without a stack. */
export class TransientError extends Error {
  override readonly name = 'TransientError';
}

/**
 * The error of a retried reconcile as its log line shows it. An API answer (a
 * conflict, an object gone) or a transient error is shown by its message alone: its
 * stack would only say where the client threw it, and formatting a stack
 * through source maps costs the controller manager milliseconds, on every
 * retry of a busy rollout. Anything else keeps its stack: it may be a bug.
 */
export function retriedErrorForLog(e: unknown): unknown {
  if (e instanceof StatusError || e instanceof TransientError) return e.message;
  return e;
}

export interface ReconcileLoopOptions {
  readonly name: string;
  readonly reconcile: Reconcile;
  /** Default: ctx.options.concurrentSyncs(name). */
  readonly workers?: number;
  readonly queue?: WorkQueue;
  /** Wait for these before the first reconcile (default: every informer of ctx.informers). */
  readonly waitFor?: () => Promise<void>;
}

export interface ReconcileLoop {
  readonly queue: WorkQueue;
  enqueue(key: string): void;
  enqueueAfter(key: string, delayMs: number): void;
  /** Resolves when every worker has stopped (after ctx.signal aborted). */
  readonly stopped: Promise<void>;
}

export function startReconcileLoop(ctx: ControllerContext, options: ReconcileLoopOptions): ReconcileLoop {
  const queue = options.queue ?? new RateLimitingQueue({ name: options.name });
  const workers = options.workers ?? ctx.options.concurrentSyncs(options.name);
  const log = ctx.logger.child({ controller: options.name });
  const onAbort = (): void => queue.shutDown();
  if (ctx.signal.aborted) queue.shutDown();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });

  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = await options.reconcile(key, ctx.signal);
        const after = result?.requeueAfterMs;
        if (after !== undefined && after <= 0) {
          // "Again at once" goes through the key's backoff, which grows while it keeps asking: re-adding it
          // straight away would run it again from a microtask, and a reconcile that needs no I/O would then
          // never let the event loop run (no watch event, timer or health check) until it stopped asking.
          if (!ctx.signal.aborted) queue.addRateLimited(key);
        } else {
          queue.forget(key);
          if (after !== undefined && !ctx.signal.aborted) queue.addAfter(key, after);
        }
      } catch (e: unknown) {
        if (ctx.signal.aborted) {
          // shutting down: the error is most likely the abort itself
        } else if (e instanceof TerminalError) {
          queue.forget(key);
          log.error({ key, err: e }, 'reconcile failed for good; waiting for the next change');
        } else {
          log.warn({ key, err: retriedErrorForLog(e), retries: queue.numRequeues(key) }, 'reconcile failed; retrying with backoff');
          queue.addRateLimited(key);
        }
      } finally {
        queue.done(key);
        ctx.onReconciled?.(options.name, key);
      }
    }
  };

  const stopped = (async () => {
    try {
      await (options.waitFor ?? (() => ctx.informers.waitForCacheSync(ctx.signal)))();
    } catch {
      queue.shutDown();
      return;
    }
    await Promise.all(Array.from({ length: Math.max(1, workers) }, () => worker()));
  })();

  return {
    queue,
    enqueue: (key) => queue.add(key),
    enqueueAfter: (key, delayMs) => queue.addAfter(key, delayMs),
    stopped,
  };
}
