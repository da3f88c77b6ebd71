/**
 * The webhook configurations of one kind (mutating or validating), kept in
 * memory and fed by the store's watch, so that admitting a request never lists
 * them (admission/watched-objects.ts keeps the index). Hooks come out sorted
 * by configuration name, then in their order in the configuration, as
 * upstream's dispatcher calls them.
 */
import type { Webhook, WebhookConfiguration } from '../../../../api/admissionregistration/v1/types.js';
import type { GenericStore } from '../../../registry/generic/store.js';
import { watchObjects } from '../../watched-objects.js';

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
  const configs = watchObjects<WebhookConfiguration>({
    store: options.store,
    signal: options.signal,
    ...(options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {}),
  });
  let sorted: readonly WebhookAccessor[] = [];
  let builtAt = -1;
  return {
    ready: () => configs.ready(),
    webhooks() {
      // Rebuilt only when a configuration changed (the index's version moves on every change and relist).
      if (builtAt !== configs.version) {
        builtAt = configs.version;
        sorted = [...configs.list('')]
          .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
          .flatMap((config) => {
            const name = config.metadata.name ?? '';
            return (config.webhooks ?? []).map((webhook, index) => ({ key: `${name}/${index}`, configurationName: name, index, webhook }));
          });
      }
      return sorted;
    },
  };
}
