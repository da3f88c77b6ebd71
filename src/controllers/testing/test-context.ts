/**
 * A ControllerContext for unit tests of controllers: a fake client (or the
 * one given), an informer factory over it, a silent logger, upstream's
 * default options with the test's overrides, an in-memory Event recorder and
 * an abort signal. start() starts the informers (as the manager does after
 * every controller's start); stop() aborts the signal and stops them.
 *
 * @example
 *   const t = newTestContext({ options: { nodeMonitorGracePeriodMs: 100 } });
 *   t.client.seed(REPLICA_SETS, [rs]);
 *   await replicasetController.start(t.ctx);
 *   t.start();
 *   await waitFor(() => t.client.actionsOf('create', 'pods').length === 3);
 *   t.stop();
 */
import { newInformerFactory } from '../../client/cache/informer-factory.js';
import type { InformerFactory } from '../../client/cache/interfaces.js';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import type { ControllerContext, ControllerManagerOptions } from '../context.js';
import { defaultControllerManagerOptions } from '../options.js';
import { newRecordingEventRecorderFactory, type RecordedEvent } from './recording-event-recorder.js';

export type { RecordedEvent } from './recording-event-recorder.js';
export { waitFor, type WaitForOptions } from '../../client/testing/wait-for.js';

export interface TestContextOptions {
  readonly options?: Partial<ControllerManagerOptions>;
  readonly client?: FakeClient;
  /** The informers' default resync period (default: none). */
  readonly resyncPeriodMs?: number;
}

export interface TestContext {
  readonly ctx: ControllerContext;
  readonly client: FakeClient;
  readonly informers: InformerFactory;
  /** Every Event recorded through ctx.events, in order. */
  readonly events: RecordedEvent[];
  /** Errors the informers reported (failed lists and watches, throwing handlers). */
  readonly informerErrors: { readonly message: string; readonly error: unknown }[];
  /** How many reconciles of the named loop have ended so far (any key, any outcome). */
  reconciled(loop: string): number;
  /** Start the informers. */
  start(): void;
  /** Abort ctx.signal and stop the informers. */
  stop(): void;
}

export function newTestContext(options: TestContextOptions = {}): TestContext {
  const client = options.client ?? newFakeClient();
  const informerErrors: { message: string; error: unknown }[] = [];
  const informers = newInformerFactory(client, {
    ...(options.resyncPeriodMs !== undefined ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
    initialBackoffMs: 5,
    maxBackoffMs: 50,
    onError: (message, error) => informerErrors.push({ message, error }),
  });
  const events: RecordedEvent[] = [];
  const reconciles = new Map<string, number>();
  const abort = new AbortController();
  const ctx: ControllerContext = {
    client,
    informers,
    events: newRecordingEventRecorderFactory(events),
    logger: newLogger('controller-test', { level: 'silent' }),
    options: defaultControllerManagerOptions(options.options),
    signal: abort.signal,
    onReconciled: (loop) => reconciles.set(loop, (reconciles.get(loop) ?? 0) + 1),
  };
  return {
    ctx,
    client,
    informers,
    events,
    informerErrors,
    reconciled: (loop) => reconciles.get(loop) ?? 0,
    start: () => informers.start(),
    stop: () => {
      abort.abort();
      informers.stop();
    },
  };
}
