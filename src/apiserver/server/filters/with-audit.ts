/**
 * Audit: one audit.k8s.io/v1 Event per stage of each request the policy logs
 * (RequestReceived on arrival, ResponseStarted when a watch or other
 * long-running request starts streaming, ResponseComplete when it is done,
 * Panic when the handler failed unexpectedly), with the user, verb, object,
 * answer, and the time spent in each pipeline stage. As upstream it runs
 * right after authentication, so it knows who is asking; the response carries
 * the event's id in the Audit-Id header.
 */
import { StatusError } from '../../../machinery/status.js';
import type { Auditor } from '../../audit/auditor.js';
import type { PolicyDecision } from '../../audit/policy.js';
import { LatencyTracker } from '../../audit/latency-tracker.js';
import { RequestAudit } from '../../audit/request-audit.js';
import { isLongRunning } from '../../metrics/request-labels.js';
import type { Filter, RequestContext } from '../context.js';
import { statusBody } from '../response.js';

const passThrough: Filter = (next) => next;

export function withAudit(auditor: Auditor | undefined): Filter {
  if (auditor === undefined) return passThrough;
  return (next) => async (ctx) => {
    const decision = evaluate(auditor, ctx);
    if (decision.level === 'None') {
      await next(ctx);
      return;
    }
    const audit = new RequestAudit(decision, ctx);
    ctx.audit = audit;
    ctx.latency ??= new LatencyTracker();
    if (!ctx.res.headersSent) ctx.res.setHeader('Audit-Id', audit.auditID);
    const emit = (stage: 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic'): void => {
      if (!decision.omitStages.has(stage)) auditor.backend.write(audit.event(ctx, stage));
    };
    emit('RequestReceived');
    if (isLongRunning(ctx.info) && !decision.omitStages.has('ResponseStarted')) onHeadersSent(ctx, () => emit('ResponseStarted'));
    let stage: 'ResponseComplete' | 'Panic' = 'ResponseComplete';
    try {
      await next(ctx);
    } catch (e: unknown) {
      if (e instanceof StatusError) {
        const { kind: _kind, apiVersion: _apiVersion, ...status } = statusBody(e.status);
        audit.responseStatus = status;
      } else {
        stage = 'Panic';
        audit.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${e instanceof Error ? e.message : String(e)}`, reason: 'InternalError', code: 500 };
      }
      throw e;
    } finally {
      emit(stage);
    }
  };
}

/**
 * Upstream's WithFailedAuthenticationAudit: a request refused by
 * authentication (401) never reaches withAudit, so this wrapper around the
 * authentication filter writes its event (stage ResponseStarted, no user).
 */
export function withFailedAuthenticationAudit(auditor: Auditor | undefined, authentication: Filter): Filter {
  if (auditor === undefined) return authentication;
  return (next) => {
    const inner = authentication(next);
    return async (ctx) => {
      try {
        await inner(ctx);
      } catch (e: unknown) {
        if (e instanceof StatusError && e.code === 401 && ctx.audit === undefined) {
          const decision = evaluate(auditor, ctx);
          if (decision.level !== 'None' && !decision.omitStages.has('ResponseStarted')) {
            const audit = new RequestAudit(decision, ctx);
            const { kind: _kind, apiVersion: _apiVersion, ...status } = statusBody(e.status);
            audit.responseStatus = status;
            auditor.backend.write(audit.event(ctx, 'ResponseStarted'));
          }
        }
        throw e;
      }
    };
  };
}

function evaluate(auditor: Auditor, ctx: RequestContext): PolicyDecision {
  const user = ctx.user;
  const info = ctx.info;
  return auditor.policy.evaluate({
    user: user?.name ?? '',
    groups: user?.groups ?? [],
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: ctx.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  });
}

/** Call `then` once when the response's headers go out (the start of a stream). */
function onHeadersSent(ctx: RequestContext, then: () => void): void {
  const res = ctx.res as { writeHead: (...args: unknown[]) => unknown };
  const original = res.writeHead;
  let called = false;
  res.writeHead = function writeHeadAudited(this: unknown, ...args: unknown[]): unknown {
    const result = original.apply(this, args);
    if (!called) {
      called = true;
      then();
    }
    return result;
  };
}
