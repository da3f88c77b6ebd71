/**
 * Webhook authorization (`--authorization-mode=…,Webhook`), as upstream's
 * plugin/pkg/authorizer/webhook: each decision not in the cache is a
 * SubjectAccessReview (authorization.k8s.io v1 or v1beta1) POSTed to the
 * configured service; status.allowed → Allow, status.denied → Deny (both:
 * Deny with an error), neither → NoOpinion, with the webhook's reason.
 * Answers are cached for --authorization-webhook-cache-authorized-ttl
 * (allowed) and --authorization-webhook-cache-unauthorized-ttl (the rest).
 * A service that cannot be reached or answers badly gives NoOpinion with the
 * error as the evaluation error (the legacy flags' failure policy), after
 * upstream's retries of transient failures only; the union then asks the
 * next authorizer, and with no Allow the error makes the request a 500.
 * Rules cannot be listed (SelfSubjectRulesReview): incomplete, with an error.
 */
import type { UserInfo } from '../../../server/context.js';
import type { RuleSet } from '../always.js';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver } from '../interface.js';
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

/** The SubjectAccessReview versions a webhook may speak (--authorization-webhook-version). */
export type SubjectAccessReviewVersion = 'v1' | 'v1beta1';

/** Upstream's default for --authorization-webhook-version (kube-apiserver still defaults to v1beta1). */
export const DEFAULT_WEBHOOK_VERSION: SubjectAccessReviewVersion = 'v1beta1';

/** Requests whose attributes are this large are not cached (upstream's maxControlledAttrCacheSize). */
const MAX_CACHED_ATTRIBUTES_SIZE = 10_000;

export interface WebhookAuthorizerOptions {
  readonly endpoint: WebhookEndpoint;
  /** The review version sent and expected back (default v1). */
  readonly version?: SubjectAccessReviewVersion;
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

/** Thrown for an HTTP answer outside 2xx; upstream retries 429, 500 and 504. */
class WebhookStatusError extends Error {
  constructor(readonly statusCode: number) {
    super(`the server responded with the status code ${statusCode} but did not return more information`);
  }
}

/** Upstream's DefaultShouldRetry: transient failures only (a refused connection or a timeout is not retried). */
function shouldRetry(e: unknown): boolean {
  if (e instanceof WebhookStatusError) return e.statusCode === 429 || e.statusCode === 500 || e.statusCode === 504;
  const message = e instanceof Error ? e.message : '';
  return /connection reset by peer|: EOF$/.test(message);
}

export class WebhookAuthorizer implements Authorizer, RuleResolver {
  private readonly poster = new HttpsPoster();
  private readonly cache = new Map<string, { result: AuthorizationResult; expires: number }>();
  private readonly now: () => number;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.now = options.now ?? Date.now;
  }

  async authorize(attributes: Attributes): Promise<AuthorizationResult> {
    const review = subjectAccessReview(attributes, this.options.version ?? 'v1');
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
    const result = decisionOf(status);
    const ttl = status.allowed === true ? (this.options.authorizedTTLMs ?? 300_000) : (this.options.unauthorizedTTLMs ?? 30_000);
    if (ttl > 0 && attributesSize(attributes) < MAX_CACHED_ATTRIBUTES_SIZE) this.remember(key, result, ttl);
    return result;
  }

  /** Upstream's webhook cannot list a user's rules: none, incomplete, and an error saying so. */
  async rulesFor(_user: UserInfo, _namespace: string): Promise<RuleSet> {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
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
        if (result.statusCode < 200 || result.statusCode >= 300) throw new WebhookStatusError(result.statusCode);
        return statusOf(result.body, review.apiVersion);
      } catch (e: unknown) {
        if (!shouldRetry(e) || attempt >= backoff.steps) throw e;
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
  apiVersion: `authorization.k8s.io/${SubjectAccessReviewVersion}`;
  kind: 'SubjectAccessReview';
  metadata: { creationTimestamp: null };
  spec: Record<string, unknown>;
  status: { allowed: false };
}

/** Upstream's decision from a review's status. */
function decisionOf(status: SubjectAccessReviewStatus): AuthorizationResult {
  const reason = status.reason ?? '';
  if (status.allowed === true && status.denied === true) {
    return { decision: 'Deny', reason, evaluationError: 'webhook subject access review returned both allow and deny response' };
  }
  if (status.denied === true) return { decision: 'Deny', reason };
  if (status.allowed === true) return { decision: 'Allow', reason };
  return { decision: 'NoOpinion', reason };
}

/** The length of the request's own attributes (upstream does not cache answers for huge ones). */
function attributesSize(a: Attributes): number {
  return a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length;
}

/**
 * The review upstream sends: resource or non-resource attributes, and the
 * user (v1beta1 names the groups field `group`).
 */
export function subjectAccessReview(a: Attributes, version: SubjectAccessReviewVersion = 'v1'): SubjectAccessReview {
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
  if (a.user.groups.length > 0) spec[version === 'v1' ? 'groups' : 'group'] = [...a.user.groups];
  if (a.user.extra !== undefined && Object.keys(a.user.extra).length > 0) spec.extra = a.user.extra;
  if (a.user.uid !== undefined && a.user.uid !== '') spec.uid = a.user.uid;
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } };
}

function statusOf(body: unknown, apiVersion: string): SubjectAccessReviewStatus {
  if (typeof body !== 'object' || body === null) throw new Error('the webhook answered something that is not a SubjectAccessReview');
  const review = body as { apiVersion?: unknown; kind?: unknown; status?: unknown };
  if (review.apiVersion !== apiVersion || review.kind !== 'SubjectAccessReview') {
    throw new Error(`expected response of ${apiVersion}, Kind=SubjectAccessReview, got ${String(review.apiVersion ?? '')}, Kind=${String(review.kind ?? '')}`);
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
  /** --authorization-webhook-version: v1 or v1beta1 (upstream's default). */
  readonly version?: string;
  /** --authorization-webhook-cache-authorized-ttl in ms (cmd/go-duration.ts durationFlag), default 5m. */
  readonly cacheAuthorizedTTLMs?: number;
  /** --authorization-webhook-cache-unauthorized-ttl in ms, default 30s. */
  readonly cacheUnauthorizedTTLMs?: number;
  readonly retryBackoff?: RetryBackoff;
}

/** The factory `--authorization-mode=…,Webhook` uses; throws a clear Error for bad flags or a bad config file. */
export function newWebhookAuthorizerFromFlags(flags: WebhookAuthorizerFlags): WebhookAuthorizer {
  if (flags.configFile === '') throw new Error("authorization-mode Webhook's authorization config file not passed");
  const version = flags.version ?? DEFAULT_WEBHOOK_VERSION;
  if (version !== 'v1' && version !== 'v1beta1') throw new Error(`unsupported webhook authorizer version "${version}", supported versions are "v1", "v1beta1"`);
  return new WebhookAuthorizer({
    endpoint: loadWebhookConfig(flags.configFile),
    version,
    authorizedTTLMs: flags.cacheAuthorizedTTLMs ?? 300_000,
    unauthorizedTTLMs: flags.cacheUnauthorizedTTLMs ?? 30_000,
    ...(flags.retryBackoff !== undefined ? { retryBackoff: flags.retryBackoff } : {}),
  });
}
