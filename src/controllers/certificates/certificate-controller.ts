/**
 * The loop every CSR controller shares (upstream's certificates.CertificateController):
 * every added, changed or deleted CertificateSigningRequest is queued by
 * name, and the controller's handler sees the cached object (a deleted one is
 * skipped). Retries stay in the reconcile loop: a handler throws to retry
 * with backoff, or returns requeueAfterMs to look again later.
 */
import { CERTIFICATE_SIGNING_REQUESTS } from '../../client/rest/resources.js';
import type { ControllerContext } from '../context.js';
import { startReconcileLoop, type ReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import type { CsrObject } from './csr.js';

export type CsrHandler = (csr: CsrObject, signal: AbortSignal) => Promise<ReconcileResult | void>;

export interface CertificateControllerOptions {
  /** The controller's name (queue, logs and --controllers). */
  readonly name: string;
  readonly handle: CsrHandler;
  readonly workers?: number;
}

export function startCertificateController(ctx: ControllerContext, options: CertificateControllerOptions): ReconcileLoop {
  const informer = ctx.informers.informerFor<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
  const loop = startReconcileLoop(ctx, {
    name: options.name,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    reconcile: async (key, signal) => {
      const csr = informer.indexer.get(key);
      if (csr === undefined) return;
      return options.handle(csr, signal);
    },
  });
  const enqueue = (csr: CsrObject): void => loop.enqueue(csr.metadata.name ?? '');
  informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, csr) => enqueue(csr), onDelete: enqueue });
  return loop;
}
