/**
 * PodSecurity's decisions (upstream's k8s.io/pod-security-admission/admission):
 * - pods: enforce (refuse), audit (annotation) and warn (Warning header) by the
 *   namespace's policy; updates that change no image and add no container are
 *   not evaluated; the exec/attach/binding/eviction/log/portforward/proxy/status
 *   subresources are ignored;
 * - workloads with a pod template: audit and warn only, never enforce;
 * - namespaces: the labels must be valid, and tightening the enforce level
 *   warns about existing pods that would violate it.
 */
import { goQuote } from '../../../../../machinery/validation/go-text.js';
import type { KubeObject } from '../../../../../machinery/meta.js';
import { forbidden, invalid, StatusError } from '../../../../../machinery/status.js';
import { compareLevels, levelVersionString, sameLevelVersion, sameVersion, type LevelVersion } from '../api/level-version.js';
import {
  AUDIT_LEVEL_LABEL,
  AUDIT_VERSION_LABEL,
  AUDIT_VIOLATIONS_KEY,
  ENFORCE_LEVEL_LABEL,
  ENFORCE_POLICY_KEY,
  ENFORCE_VERSION_LABEL,
  equivalentPolicy,
  ERROR_KEY,
  EXEMPT_KEY,
  fullyPrivileged,
  policyToEvaluate,
  WARN_LEVEL_LABEL,
  WARN_VERSION_LABEL,
  type Policy,
} from '../api/policy.js';
import { formatFieldErrors, type FieldError } from '../../../../../machinery/field-errors.js';
import { aggregateCheckResults, forbiddenDetail, type AggregateCheckResult, type Evaluator } from '../policy/evaluator.js';
import type { PodMetaView, PodSpecView } from '../policy/pod-view.js';
import type { CompletedConfiguration } from './configuration.js';
import { evaluatePodsInNamespace, type ExistingPod } from './namespace-pods.js';
import { extractPodSpec, isWorkloadResource } from './pod-spec-extractor.js';
import { ALLOW, allowWith, type PodSecurityResponse } from './response.js';
import { isSignificantPodUpdate } from './significant-update.js';

/** The request as PodSecurity needs it (a subset of AdmissionAttributes). */
export interface PodSecurityRequest {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly kind: { readonly group: string; readonly kind: string };
  readonly resource: { readonly group: string; readonly resource: string };
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly userName: string;
}

export interface PodSecurityAdmissionOptions {
  readonly configuration: CompletedConfiguration;
  readonly evaluator: Evaluator;
  /** The namespace's labels; rejects when it cannot be read. Undefined when the namespace does not exist. */
  readonly namespaceLabels: (name: string) => Promise<Readonly<Record<string, string>> | undefined>;
  readonly listPods: (namespace: string) => Promise<readonly ExistingPod[]>;
  readonly maxPodsToCheck?: number;
  readonly podCheckTimeoutMs?: number;
  readonly now?: () => number;
}

const IGNORED_POD_SUBRESOURCES: ReadonlySet<string> = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** Upstream's limits on checking existing pods when a namespace's enforce level changes. */
export const DEFAULT_MAX_PODS_TO_CHECK = 3000;
export const DEFAULT_POD_CHECK_TIMEOUT_MS = 1000;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class PodSecurityAdmission {
  constructor(private readonly o: PodSecurityAdmissionOptions) {}

  /** Whether PodSecurity looks at this resource at all. */
  static applies(group: string, resource: string): boolean {
    return (group === '' && (resource === 'pods' || resource === 'namespaces')) || isWorkloadResource(group, resource);
  }

  async validate(r: PodSecurityRequest): Promise<PodSecurityResponse> {
    if (r.resource.group === '' && r.resource.resource === 'namespaces') return this.validateNamespace(r);
    if (r.resource.group === '' && r.resource.resource === 'pods') return this.validatePod(r);
    if (isWorkloadResource(r.resource.group, r.resource.resource)) return this.validatePodController(r);
    return ALLOW;
  }

  /** Policies parsed from labels, by labels object: a namespace's labels from the in-memory index are the same object until it changes. */
  private readonly policies = new WeakMap<object, { policy: Policy; errors: FieldError[] }>();

  private policyOf(labels: Readonly<Record<string, string>> | undefined): { policy: Policy; errors: FieldError[] } {
    if (labels === undefined) return policyToEvaluate(labels, this.o.configuration.defaultPolicy);
    let parsed = this.policies.get(labels);
    if (parsed === undefined) {
      parsed = policyToEvaluate(labels, this.o.configuration.defaultPolicy);
      this.policies.set(labels, parsed);
    }
    return parsed;
  }

  private exemptNamespace(ns: string): boolean {
    return ns !== '' && this.o.configuration.exemptNamespaces.has(ns);
  }

  private exemptUser(user: string): boolean {
    return user !== '' && this.o.configuration.exemptUsernames.has(user);
  }

  async validateNamespace(r: PodSecurityRequest): Promise<PodSecurityResponse> {
    if (r.subresource !== '' || r.object === undefined) return ALLOW;
    const name = r.object.metadata.name ?? r.name;
    const labels = r.object.metadata.labels;
    const { policy, errors } = this.policyOf(labels);
    const refuseInvalid = (): PodSecurityResponse => ({ allowed: false, error: invalid({ group: r.kind.group, kind: r.kind.kind }, name, errors), warnings: [], auditAnnotations: {} });
    const exemptWarning = (): PodSecurityResponse => {
      const warning = this.exemptNamespaceWarning(name, policy, labels ?? {});
      return warning === '' ? ALLOW : allowWith({ warnings: [warning] });
    };
    if (r.operation === 'CREATE') {
      if (errors.length > 0) return refuseInvalid();
      return this.exemptNamespace(name) ? exemptWarning() : ALLOW;
    }
    const old = this.policyOf(r.oldObject?.metadata.labels);
    if (errors.length > 0 && (old.errors.length === 0 || formatFieldErrors(errors) !== formatFieldErrors(old.errors))) return refuseInvalid();
    if (sameLevelVersion(policy.enforce, old.policy.enforce)) return ALLOW;
    if (policy.enforce.level === 'privileged') return ALLOW;
    // The same version at a level no stricter than before: nothing existing can newly violate it.
    if (sameVersion(policy.enforce.version, old.policy.enforce.version) && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return ALLOW;
    if (this.exemptNamespace(name)) return exemptWarning();
    let pods: readonly ExistingPod[];
    try {
      pods = await this.o.listPods(name);
    } catch {
      return allowWith({ warnings: ['failed to list pods while checking new PodSecurity enforce level'] });
    }
    return allowWith({
      warnings: evaluatePodsInNamespace(name, policy.enforce, pods, {
        evaluator: this.o.evaluator,
        exemptRuntimeClasses: this.o.configuration.exemptRuntimeClasses,
        maxPodsToCheck: this.o.maxPodsToCheck ?? DEFAULT_MAX_PODS_TO_CHECK,
        timeoutMs: this.o.podCheckTimeoutMs ?? DEFAULT_POD_CHECK_TIMEOUT_MS,
        now: this.o.now ?? Date.now,
      }),
    });
  }

  async validatePod(r: PodSecurityRequest): Promise<PodSecurityResponse> {
    const early = this.podExemption(r);
    if (early !== undefined) return early;
    let labels: Readonly<Record<string, string>> | undefined;
    try {
      labels = await this.o.namespaceLabels(r.namespace);
    } catch (e: unknown) {
      const message = `failed to lookup namespace ${goQuote(r.namespace)}`;
      const error = new StatusError({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } });
      return { allowed: false, error, warnings: [], auditAnnotations: { [ERROR_KEY]: `Internal error occurred: ${message}: ${errorMessage(e)}` } };
    }
    return this.decidePod(r, labels);
  }

  /**
   * validatePod without waiting, for a caller that already holds the
   * namespace's labels (from memory): the same answer validatePod gives.
   */
  validatePodWithLabels(r: PodSecurityRequest, labels: Readonly<Record<string, string>> | undefined): PodSecurityResponse {
    return this.podExemption(r) ?? this.decidePod(r, labels);
  }

  /** The answers that need no namespace: ignored subresources, exempt namespaces and users. */
  private podExemption(r: PodSecurityRequest): PodSecurityResponse | undefined {
    if (IGNORED_POD_SUBRESOURCES.has(r.subresource)) return ALLOW;
    if (this.exemptNamespace(r.namespace)) return allowWith({ auditAnnotations: { [EXEMPT_KEY]: 'namespace' } });
    if (this.exemptUser(r.userName)) return allowWith({ auditAnnotations: { [EXEMPT_KEY]: 'user' } });
    return undefined;
  }

  private decidePod(r: PodSecurityRequest, labels: Readonly<Record<string, string>> | undefined): PodSecurityResponse {
    const { policy, errors } = this.policyOf(labels);
    if (errors.length === 0 && fullyPrivileged(policy)) {
      return allowWith({ auditAnnotations: { [ENFORCE_POLICY_KEY]: 'privileged:latest' } });
    }
    if (r.object === undefined) return ALLOW;
    const spec = (r.object['spec'] ?? {}) as PodSpecView;
    if (r.operation === 'UPDATE' && r.oldObject !== undefined) {
      if (!isSignificantPodUpdate(spec, (r.oldObject['spec'] ?? {}) as PodSpecView)) return ALLOW;
    }
    return this.evaluatePod(policy, errors, r.object.metadata, spec, r, true);
  }

  async validatePodController(r: PodSecurityRequest): Promise<PodSecurityResponse> {
    if (r.subresource !== '') return ALLOW;
    if (this.exemptNamespace(r.namespace)) return allowWith({ auditAnnotations: { [EXEMPT_KEY]: 'namespace' } });
    if (this.exemptUser(r.userName)) return allowWith({ auditAnnotations: { [EXEMPT_KEY]: 'user' } });
    let labels: Readonly<Record<string, string>> | undefined;
    try {
      labels = await this.o.namespaceLabels(r.namespace);
    } catch (e: unknown) {
      return allowWith({ auditAnnotations: { [ERROR_KEY]: `failed to lookup namespace ${goQuote(r.namespace)}: ${errorMessage(e)}` } });
    }
    const { policy, errors } = this.policyOf(labels);
    if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return ALLOW;
    if (r.object === undefined) return ALLOW;
    const extracted = extractPodSpec(r.resource.group, r.resource.resource, r.object);
    if (extracted === undefined) return ALLOW;
    return this.evaluatePod(policy, errors, extracted.meta, extracted.spec, r, false);
  }

  /** Enforce (when `enforce`), audit and warn: each level+version evaluated once. */
  evaluatePod(policy: Policy, policyErrors: readonly FieldError[], meta: PodMetaView, spec: PodSpecView, r: PodSecurityRequest, enforce: boolean): PodSecurityResponse {
    const runtimeClass = spec.runtimeClassName ?? '';
    if (runtimeClass !== '' && this.o.configuration.exemptRuntimeClasses.has(runtimeClass)) return allowWith({ auditAnnotations: { [EXEMPT_KEY]: 'runtimeClass' } });
    const annotations: Record<string, string> = {};
    if (policyErrors.length > 0) annotations[ERROR_KEY] = `Failed to parse policy: ${formatFieldErrors(policyErrors)}`;
    const cache = new Map<string, AggregateCheckResult>();
    const evaluate = (lv: LevelVersion): AggregateCheckResult => {
      const key = levelVersionString(lv);
      let result = cache.get(key);
      if (result === undefined) {
        result = aggregateCheckResults(this.o.evaluator.evaluatePod(lv, meta, spec));
        cache.set(key, result);
      }
      return result;
    };
    let error: StatusError | undefined;
    if (enforce) {
      annotations[ENFORCE_POLICY_KEY] = levelVersionString(policy.enforce);
      const result = evaluate(policy.enforce);
      if (!result.allowed) {
        error = forbidden(r.resource, r.name, `violates PodSecurity ${goQuote(levelVersionString(policy.enforce))}: ${forbiddenDetail(result)}`);
      }
    }
    const audit = evaluate(policy.audit);
    if (!audit.allowed) annotations[AUDIT_VIOLATIONS_KEY] = `would violate PodSecurity ${goQuote(levelVersionString(policy.audit))}: ${forbiddenDetail(audit)}`;
    const warnings: string[] = [];
    if (error === undefined) {
      const warn = evaluate(policy.warn);
      if (!warn.allowed) warnings.push(`would violate PodSecurity ${goQuote(levelVersionString(policy.warn))}: ${forbiddenDetail(warn)}`);
    }
    return error === undefined ? { allowed: true, warnings, auditAnnotations: annotations } : { allowed: false, error, warnings, auditAnnotations: annotations };
  }

  /** Upstream's warning when an exempt namespace sets a policy that will be ignored ('' when nothing to say). */
  exemptNamespaceWarning(namespace: string, policy: Policy, labels: Readonly<Record<string, string>>): string {
    if (fullyPrivileged(policy) || equivalentPolicy(policy, this.o.configuration.defaultPolicy)) return '';
    const has = (label: string): boolean => Object.prototype.hasOwnProperty.call(labels, label);
    const parts: string[] = [];
    if (policy.enforce.level !== 'privileged' && (has(ENFORCE_LEVEL_LABEL) || has(ENFORCE_VERSION_LABEL))) parts.push(`enforce=${levelVersionString(policy.enforce)}`);
    if (policy.audit.level !== 'privileged' && (has(AUDIT_LEVEL_LABEL) || has(AUDIT_VERSION_LABEL))) parts.push(`audit=${levelVersionString(policy.audit)}`);
    if (policy.warn.level !== 'privileged' && (has(WARN_LEVEL_LABEL) || has(WARN_VERSION_LABEL))) parts.push(`warn=${levelVersionString(policy.warn)}`);
    return `namespace ${goQuote(namespace)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
  }
}
