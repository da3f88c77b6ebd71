/**
 * tokencleaner (upstream's bootstrap TokenCleaner; off by default as
 * upstream, `--controllers=*,tokencleaner` turns it on): deletes
 * bootstrap-token Secrets of kube-system once their `expiration` has passed
 * (an unparsable expiration counts as passed), with a uid precondition so a
 * re-created Secret of the same name is kept. A Secret that expires later
 * is requeued for that moment.
 */
import { SECRETS } from '../../client/rest/resources.js';
import { BOOTSTRAP_TOKEN_NAMESPACE } from '../../machinery/bootstrap-token.js';
import type { Client } from '../../client/rest/interface.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { isBootstrapTokenSecret, tokenExpiration, type SecretObject } from './token-secret.js';

/** The longest single wait (node timers overflow past 2^31 ms); the Secret is then looked at again. */
export const MAX_REQUEUE_MS = 24 * 3600_000;

export interface TokenCleanerOptions {
  readonly client: Client;
  readonly secrets: Indexer<SecretObject>;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

/** The sync of one Secret key (`kube-system/<name>`). */
export function newTokenCleaner(options: TokenCleanerOptions): (key: string) => Promise<ReconcileResult | void> {
  const secrets = options.client.resource<SecretObject>(SECRETS);
  const now = options.now ?? Date.now;
  return async (key) => {
    const secret = options.secrets.get(key);
    if (secret === undefined || !isBootstrapTokenSecret(secret)) return;
    const { expired, ttlMs } = tokenExpiration(secret, now());
    if (expired) {
      options.log?.(`Deleting expired secret ${key}`);
      try {
        await secrets.delete(secret.metadata.name ?? '', {
          namespace: secret.metadata.namespace ?? BOOTSTRAP_TOKEN_NAMESPACE,
          ...(secret.metadata.uid !== undefined ? { preconditions: { uid: secret.metadata.uid } } : {}),
        });
      } catch (e: unknown) {
        // NotFound: already gone; Conflict: the uid precondition failed (another Secret of that name).
        if (isNotFound(e) || isConflict(e)) return;
        throw e;
      }
      return;
    }
    if (ttlMs !== undefined) return { requeueAfterMs: Math.min(ttlMs + 1, MAX_REQUEUE_MS) };
  };
}

export const tokenCleanerController: ControllerDefinition = {
  name: 'tokencleaner',
  enabledByDefault: false,
  start(ctx: ControllerContext): void {
    const informer = ctx.informers.informerFor<SecretObject>(SECRETS, { namespace: BOOTSTRAP_TOKEN_NAMESPACE });
    const log = ctx.logger.child({ controller: 'tokencleaner' });
    const sync = newTokenCleaner({ client: ctx.client, secrets: informer.indexer, log: (m) => log.info(m) });
    const loop = startReconcileLoop(ctx, { name: 'token_cleaner', workers: 1, reconcile: (key) => sync(key) });
    const enqueue = (s: SecretObject): void => {
      if (isBootstrapTokenSecret(s)) loop.enqueue(`${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`);
    };
    informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, s) => enqueue(s) });
  },
};
