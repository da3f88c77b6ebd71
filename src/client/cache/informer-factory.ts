/**
 * One informer per resource and selection, shared by every controller of a
 * process: the same (ref, options) always gives the same informer, so a
 * process lists and watches each collection once.
 *
 * waitForCacheSync waits for start() and then for every informer asked for
 * (including ones asked for while it waits), so a worker that calls it before
 * the manager starts the factory does not run on an empty cache.
 *
 * @example
 *   const factory = newInformerFactory(client, { resyncPeriodMs: 60_000 });
 *   const pods = factory.informerFor<Pod>(PODS);
 *   pods.addEventHandler({ onAdd: (pod) => queue.add(objectKey(pod)) });
 *   factory.start();
 *   await factory.waitForCacheSync(signal);
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { Client, ResourceRef } from '../rest/interface.js';
import type { InformerFactory, InformerOptions, SharedIndexInformer } from './interfaces.js';
import { listerWatcherFor } from './resource-lister-watcher.js';
import { SharedInformer } from './shared-informer.js';

export interface InformerFactoryOptions {
  /** Default resync period of every handler (0 or absent: none). */
  readonly resyncPeriodMs?: number;
  /** Reflector failures and handler exceptions. */
  readonly onError?: (message: string, error: unknown) => void;
  /** Reflector retry backoff (default 100 ms, doubled up to 10 s). */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export interface StoppableInformerFactory extends InformerFactory {
  /** True between start() and stop(). */
  readonly started: boolean;
}

function informerKey(ref: ResourceRef, options: InformerOptions): string {
  return JSON.stringify([ref.group, ref.version, ref.resource, options.namespace ?? '', options.labelSelector ?? '', options.fieldSelector ?? '']);
}

function informerName(ref: ResourceRef, options: InformerOptions): string {
  const resource = ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
  const selection = [options.namespace, options.labelSelector, options.fieldSelector].filter((s) => s !== undefined && s !== '');
  return selection.length === 0 ? resource : `${resource}(${selection.join(';')})`;
}

class SharedInformerFactory implements StoppableInformerFactory {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private running = false;
  private stopped = false;
  private resolveStarted!: () => void;
  private readonly startedPromise = new Promise<void>((resolve) => (this.resolveStarted = resolve));

  constructor(
    private readonly client: Client,
    private readonly options: InformerFactoryOptions,
  ) {}

  get started(): boolean {
    return this.running;
  }

  informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef, options: InformerOptions = {}): SharedIndexInformer<T> {
    const key = informerKey(ref, options);
    let informer = this.informers.get(key);
    if (informer === undefined) {
      const { resyncPeriodMs, onError, initialBackoffMs, maxBackoffMs } = this.options;
      informer = new SharedInformer<KubeObject>(listerWatcherFor(this.client.resource(ref), options), {
        name: informerName(ref, options),
        ...(resyncPeriodMs !== undefined ? { resyncPeriodMs } : {}),
        ...(onError !== undefined ? { onError } : {}),
        ...(initialBackoffMs !== undefined ? { initialBackoffMs } : {}),
        ...(maxBackoffMs !== undefined ? { maxBackoffMs } : {}),
      });
      this.informers.set(key, informer);
      if (this.running) informer.start();
    }
    // One informer serves every T the callers name for this resource: the type is theirs to choose.
    return informer as unknown as SharedIndexInformer<T>;
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    for (const informer of this.informers.values()) informer.start();
    this.resolveStarted();
  }

  async waitForCacheSync(signal?: AbortSignal): Promise<void> {
    await untilAborted(this.startedPromise, signal);
    for (;;) {
      const pending = [...this.informers.values()].filter((informer) => !informer.hasSynced);
      if (pending.length === 0) return;
      await untilAborted(Promise.all(pending.map((informer) => informer.synced)), signal);
    }
  }

  stop(): void {
    this.stopped = true;
    this.running = false;
    for (const informer of this.informers.values()) informer.stop();
  }
}

/** Resolves with the promise, or rejects with the signal's reason once it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('waiting for the informers\' caches to sync was aborted');
}

export function newInformerFactory(client: Client, options: InformerFactoryOptions = {}): StoppableInformerFactory {
  return new SharedInformerFactory(client, options);
}
