/**
 * The webhook configurations of one kind (mutating or validating), kept in
 * memory and fed by the store's watch, so that admitting a request never lists
 * them. Hooks come out sorted by configuration name, then in their order in the
 * configuration, as upstream's dispatcher calls them. The watch restarts (with
 * a fresh list) whenever it ends, until the signal stops it.
 */
import type { Webhook, WebhookConfiguration } from '../../../../api/admissionregistration/v1/types.js';
import type { GenericStore } from '../../../registry/generic/store.js';

export interface WebhookAccessor {
  /** Unique per configuration and webhook: `CONFIG/INDEX` (the key reinvocation bookkeeping uses). */
  readonly key: string;
  readonly configurationName: string;
  readonly index: number;
  readonly webhook: Webhook;
}

export interface WebhookSource {
  /** Resolves once the first list is in (a request waits for it, as upstream answers "not yet ready" until then). */
  ready(): Promise<void>;
  webhooks(): readonly WebhookAccessor[];
}

export interface WebhookSourceOptions {
  readonly store: GenericStore;
  readonly signal: AbortSignal;
  /** Pause before re-watching after a failure. */
  readonly retryDelayMs?: number;
}

export function newWebhookSource(options: WebhookSourceOptions): WebhookSource {
  const configs = new Map<string, WebhookConfiguration>();
  let sorted: WebhookAccessor[] = [];
  let resolveReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (resolveReady = resolve));

  const rebuild = (): void => {
    sorted = [...configs.keys()]
      .sort()
      .flatMap((name) => (configs.get(name)!.webhooks ?? []).map((webhook, index) => ({ key: `${name}/${index}`, configurationName: name, index, webhook })));
  };

  const run = async (): Promise<void> => {
    while (!options.signal.aborted) {
      try {
        const watch = await options.store.watch(undefined, { resourceVersion: '' });
        const stop = (): void => watch.cancel();
        options.signal.addEventListener('abort', stop, { once: true });
        try {
          const fresh = new Map<string, WebhookConfiguration>();
          let initial = watch.initialEvents;
          if (initial === 0) swap(fresh);
          for await (const event of watch) {
            const object = event.object as WebhookConfiguration;
            const name = object.metadata.name ?? '';
            const target = initial > 0 ? fresh : configs;
            if (event.type === 'DELETED') target.delete(name);
            else if (event.type === 'ADDED' || event.type === 'MODIFIED') target.set(name, object);
            else continue;
            if (initial > 0) {
              initial -= 1;
              if (initial === 0) swap(fresh);
            } else rebuild();
          }
        } finally {
          options.signal.removeEventListener('abort', stop);
          watch.cancel();
        }
      } catch {
        // The watch failed (compaction, storage trouble): list and watch again after a pause.
      }
      if (options.signal.aborted) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.retryDelayMs ?? 1000);
        options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  };

  function swap(fresh: Map<string, WebhookConfiguration>): void {
    configs.clear();
    for (const [k, v] of fresh) configs.set(k, v);
    rebuild();
    resolveReady();
  }

  void run();
  return { ready: () => readyPromise, webhooks: () => sorted };
}
