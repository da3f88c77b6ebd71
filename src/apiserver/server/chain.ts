/**
 * The request pipeline, in the order upstream runs it. Read top to bottom:
 * this is the whole path of a request through the API server.
 *
 *   panic recovery → request info → metrics → authentication → audit →
 *   (impersonation, priority and fairness, authorization: later parts of issue 6) → the handler
 *
 * The handler of a resource request runs mutating admission, the strategy's
 * prepare and validate, validating admission, and then storage (see
 * endpoints/installer.ts and registry/generic/store.ts).
 */
import type { Filter, Handler } from './context.js';
import type { Auditor } from '../audit/auditor.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';
import { trackLatency } from './filters/track-latency.js';
import { withAudit, withFailedAuthenticationAudit } from './filters/with-audit.js';
import { withAuthentication } from './filters/with-authentication.js';
import { withMetrics } from './filters/with-metrics.js';
import { withPanicRecovery } from './filters/with-panic-recovery.js';
import { withRequestInfo } from './filters/with-request-info.js';
import type { ErrorLogger } from './response.js';

export interface ChainOptions {
  readonly log: ErrorLogger;
  /** The server's request metrics; without them withMetrics passes requests through. */
  readonly metrics?: RequestMetrics;
  /** The audit policy and log; without it nothing is audited and no stage is timed. */
  readonly auditor?: Auditor;
}

/** The filters, outermost first. */
export function filters(options: ChainOptions): Filter[] {
  // Stages are timed for the audit log only: without auditing they cost nothing.
  const timed = options.auditor === undefined ? (_stage: string, filter: Filter) => filter : trackLatency;
  return [
    withPanicRecovery(options.log),
    withRequestInfo,
    withMetrics(options.metrics),
    withFailedAuthenticationAudit(options.auditor, timed('authentication', withAuthentication)),
    withAudit(options.auditor),
  ];
}

/** Wrap the handler in the filters: the first filter sees the request first. */
export function buildHandlerChain(handler: Handler, options: ChainOptions): Handler {
  return filters(options).reduceRight<Handler>((next, filter) => filter(next), handler);
}
