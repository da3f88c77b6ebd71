/**
 * Webhook authorization (`--authorization-mode=…,Webhook`), as upstream's
 * plugin/pkg/authorizer/webhook: each decision not in the cache is a
 * SubjectAccessReview v1 POSTed to the configured service; status.allowed →
 * Allow, status.denied → Deny, neither → NoOpinion. Answers are cached for
 * --authorization-webhook-cache-authorized-ttl (allowed) and
 * --authorization-webhook-cache-unauthorized-ttl (the rest). A service that
 * cannot be reached or answers badly gives NoOpinion with the error as the
 * evaluation error (upstream's decisionOnError), after upstream's retries.
 */
import type { Attributes, AuthorizationResult, Authorizer } from '../interface.js';
import { HttpsPoster } from '../../../admission/plugins/webhook/https-client.js';
import { loadWebhookConfig, type WebhookEndpoint } from './webhook-config.js';

export const AUTHORIZATION_MODE = 'Webhook';

export interface RetryBackoff {
  readonly initialMs: number;
  readonly factor: number;
  /** Attempts in all (upstream: 5). */
  readonly steps: number;
}

/** Upstream's DefaultAuthorizationWebhookRetryBackoff: 500ms, ×1.5, 5 attempts. */
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, steps: 5 };

export interface WebhookAuthorizerOptions {
  readonly endpoint: WebhookEndpoint;
  /** --authorization-webhook-cache-authorized-ttl (default 5m). */
  readonly authorizedTTLMs?: number;
  /** --authorization-webhook-cache-unauthorized-ttl (default 30s). */
  readonly unauthorizedTTLMs?: number;
  readonly timeoutMs?: number;
  readonly retryBackoff?: RetryBackoff;
  /** Largest number of cached answers (upstream's cache holds 8192). */
  readonly cacheSize?: number;
  readonly now?: () => number;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export class WebhookAuthorizer implements Authorizer {
  private readonly poster = new HttpsPoster();
  private readonly cache = new Map<string, { result: AuthorizationResult; expires: number }>();
  private readonly now: () => number;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.now = options.now ?? Date.now;
  }

  async authorize(attributes: Attributes): Promise<AuthorizationResult> {
    const review = subjectAccessReview(attributes);
    const key = JSON.stringify(review.spec);
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      if (cached.expires > this.now()) return cached.result;
      this.cache.delete(key);
    }
    let status: SubjectAccessReviewStatus;
    try {
      status = await this.post(review);
    } catch (e: unknown) {
      return { decision: 'NoOpinion', reason: '', evaluationError: e instanceof Error ? e.message : String(e) };
    }
    const reason = status.reason ?? '';
    const result: AuthorizationResult = status.allowed === true ? { decision: 'Allow', reason } : status.denied === true ? { decision: 'Deny', reason } : { decision: 'NoOpinion', reason };
    const ttl = status.allowed === true ? (this.options.authorizedTTLMs ?? 300_000) : (this.options.unauthorizedTTLMs ?? 30_000);
    if (ttl > 0) this.remember(key, result, ttl);
    return result;
  }

  private remember(key: string, result: AuthorizationResult, ttl: number): void {
    const max = this.options.cacheSize ?? 8192;
    if (this.cache.size >= max) {
      const oldest = this.cache.keys().next();
      if (oldest.done !== true) this.cache.delete(oldest.value);
    }
    this.cache.set(key, { result, expires: this.now() + ttl });
  }

  private async post(review: SubjectAccessReview): Promise<SubjectAccessReviewStatus> {
    const backoff = this.options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
    const endpoint = this.options.endpoint;
    let delay = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      let retryable = true;
      try {
        const result = await this.poster.post({
          url: endpoint.server,
          ca: endpoint.ca,
          cert: endpoint.cert,
          key: endpoint.key,
          bearerToken: endpoint.token,
          servername: endpoint.servername,
          timeoutMs: this.options.timeoutMs ?? 30_000,
          body: JSON.stringify(review),
        });
        if (result.statusCode < 200 || result.statusCode >= 300) {
          retryable = result.statusCode >= 500 || result.statusCode === 429;
          throw new Error(`the server responded with the status code ${result.statusCode}`);
        }
        retryable = false;
        return statusOf(result.body);
      } catch (e: unknown) {
        if (!retryable || attempt >= backoff.steps) throw e;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= backoff.factor;
    }
  }

  close(): void {
    this.poster.close();
  }
}

interface SubjectAccessReview {
  apiVersion: 'authorization.k8s.io/v1';
  kind: 'SubjectAccessReview';
  metadata: { creationTimestamp: null };
  spec: Record<string, unknown>;
  status: { allowed: false };
}

/** The review upstream sends: resource or non-resource attributes, and the user. */
export function subjectAccessReview(a: Attributes): SubjectAccessReview {
  const spec: Record<string, unknown> = {};
  if (a.isResourceRequest) {
    const ra: Record<string, string> = {};
    const put = (k: string, v: string): void => {
      if (v !== '') ra[k] = v;
    };
    put('namespace', a.namespace);
    put('verb', a.verb);
    put('group', a.apiGroup);
    put('version', a.apiVersion);
    put('resource', a.resource);
    put('subresource', a.subresource);
    put('name', a.name);
    spec.resourceAttributes = ra;
  } else {
    spec.nonResourceAttributes = { ...(a.path !== '' ? { path: a.path } : {}), ...(a.verb !== '' ? { verb: a.verb } : {}) };
  }
  spec.user = a.user.name;
  if (a.user.groups.length > 0) spec.groups = [...a.user.groups];
  if (a.user.extra !== undefined && Object.keys(a.user.extra).length > 0) spec.extra = a.user.extra;
  if (a.user.uid !== undefined && a.user.uid !== '') spec.uid = a.user.uid;
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } };
}

function statusOf(body: unknown): SubjectAccessReviewStatus {
  if (typeof body !== 'object' || body === null) throw new Error('the webhook answered something that is not a SubjectAccessReview');
  const review = body as { apiVersion?: unknown; kind?: unknown; status?: unknown };
  if (review.apiVersion !== 'authorization.k8s.io/v1' || review.kind !== 'SubjectAccessReview') {
    throw new Error(`expected response of authorization.k8s.io/v1, Kind=SubjectAccessReview, got ${String(review.apiVersion ?? '')}, Kind=${String(review.kind ?? '')}`);
  }
  const status = (typeof review.status === 'object' && review.status !== null ? review.status : {}) as Record<string, unknown>;
  return {
    allowed: status.allowed === true,
    denied: status.denied === true,
    ...(typeof status.reason === 'string' ? { reason: status.reason } : {}),
    ...(typeof status.evaluationError === 'string' ? { evaluationError: status.evaluationError } : {}),
  };
}

export interface WebhookAuthorizerFlags {
  /** --authorization-webhook-config-file */
  readonly configFile: string;
  /** --authorization-webhook-version: only v1 (v1beta1 is not served by k8ts). */
  readonly version?: string;
  /** --authorization-webhook-cache-authorized-ttl in ms (cmd/go-duration.ts durationFlag), default 5m. */
  readonly cacheAuthorizedTTLMs?: number;
  /** --authorization-webhook-cache-unauthorized-ttl in ms, default 30s. */
  readonly cacheUnauthorizedTTLMs?: number;
  readonly retryBackoff?: RetryBackoff;
}

/** The factory `--authorization-mode=…,Webhook` uses; throws a clear Error for bad flags or a bad config file. */
export function newWebhookAuthorizerFromFlags(flags: WebhookAuthorizerFlags): WebhookAuthorizer {
  if (flags.configFile === '') throw new Error('--authorization-webhook-config-file is required with --authorization-mode=Webhook');
  const version = flags.version ?? 'v1';
  if (version !== 'v1') throw new Error(`--authorization-webhook-version: unsupported version "${version}" (k8ts supports v1)`);
  return new WebhookAuthorizer({
    endpoint: loadWebhookConfig(flags.configFile),
    authorizedTTLMs: flags.cacheAuthorizedTTLMs ?? 300_000,
    unauthorizedTTLMs: flags.cacheUnauthorizedTTLMs ?? 30_000,
    ...(flags.retryBackoff !== undefined ? { retryBackoff: flags.retryBackoff } : {}),
  });
}
