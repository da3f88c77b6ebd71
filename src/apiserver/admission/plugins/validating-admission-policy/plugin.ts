/**
 * ValidatingAdmissionPolicy: CEL policies (admissionregistration.k8s.io/v1
 * ValidatingAdmissionPolicy) enforced through their bindings, in process.
 * For each policy whose matchConstraints cover the request, each of its
 * bindings whose matchResources do, and each param the binding selects, the
 * validations run; a failed one is handled by the binding's
 * validationActions: Deny refuses the request (upstream's message; the code
 * follows the validation's reason, Invalid 422 by default), Warn sends a
 * Warning header, Audit records a
 * `validation.policy.admission.k8s.io/validation_failure` audit annotation.
 * Configuration and evaluation errors follow the policy's failurePolicy.
 * Requests about the policies and bindings themselves, and the review
 * resources that are never stored, are not evaluated (as upstream).
 */
import type { ValidatingAdmissionPolicyBinding } from '../../../../api/admissionregistration/v1/policy-types.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { forbidden, isNotFound, StatusError, type StatusReason } from '../../../../machinery/status.js';
import type { AdmissionAttributes, AdmissionDependencies, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { newActivation, requestVariables, type RequestVariables } from './activation.js';
import type { CompiledPolicy } from './compiled-policy.js';
import { matchResourcesMatch } from './matching.js';
import { collectParams, paramStore } from './params.js';
import { newPolicySource } from './policy-source.js';
import { validate } from './validator.js';

export const NAME = 'ValidatingAdmissionPolicy';

export interface ValidatingAdmissionPolicyOptions {
  /** How long a request waits for the first list of policies and bindings before it is refused. */
  readonly readyTimeoutMs?: number;
  /** Pause before re-watching policies or bindings after a watch failed. */
  readonly retryDelayMs?: number;
}

const POLICY_RESOURCES = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);
const NOT_PERSISTED = new Set([
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
]);

function isExcluded(attributes: AdmissionAttributes): boolean {
  const { group, resource } = attributes.resource;
  return (group === 'admissionregistration.k8s.io' && POLICY_RESOURCES.has(resource)) || NOT_PERSISTED.has(`${group}/${resource}`);
}

/** Upstream's key and the JSON of one failure, as the audit annotation lists them. */
const VALIDATION_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';
const MAX_VALIDATION_FAILURES = 50;
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;

interface ValidationFailure {
  readonly message: string;
  readonly policy: string;
  readonly binding: string;
  readonly expressionIndex: number;
  readonly validationActions: readonly string[];
}

interface Denial {
  readonly policy: string;
  readonly binding: string | undefined;
  readonly message: string;
  readonly reason: string | undefined;
}

/** JSON as Go's encoder writes it (<, > and & escaped), for annotation values read by the same tools. */
const goJson = (value: unknown): string => JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** Upstream's extractResourceName: the request's name, else the object's name or generateName, else "Unknown". */
function resourceName(attributes: AdmissionAttributes): string {
  if (attributes.name !== '') return attributes.name;
  const meta = attributes.object?.metadata;
  if (meta === undefined) return 'Unknown';
  return meta.name !== undefined && meta.name !== '' ? meta.name : meta.generateName !== undefined && meta.generateName !== '' ? meta.generateName : 'Unknown';
}

function denialError(attributes: AdmissionAttributes, denial: Denial): StatusError {
  const message =
    denial.binding !== undefined
      ? `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`
      : `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.message}`;
  const base = forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, resourceName(attributes), message);
  const reason = (denial.reason === undefined || denial.reason === '' ? 'Invalid' : denial.reason) as StatusReason;
  return new StatusError({
    ...base.status,
    reason,
    code: reasonToCode(reason),
    details: { ...base.status.details, causes: [...(base.status.details?.causes ?? []), { message }] },
  });
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function newValidatingAdmissionPolicyWith(options: ValidatingAdmissionPolicyOptions = {}): (deps: AdmissionDependencies) => ValidatingAdmissionPlugin {
  return (deps) => {
    const source = newPolicySource(deps, options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {});
    let ready = false;

    const waitReady = async (attributes: AdmissionAttributes): Promise<void> => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.readyTimeoutMs ?? 10_000)));
      const ok = await Promise.race([source.ready().then(() => true), timedOut]);
      clearTimeout(timer);
      if (!ok) throw forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, resourceName(attributes), 'not yet ready to handle request');
      ready = true;
    };

    const namespaces = deps.stores('', 'v1', 'namespaces');

    return {
      name: NAME,
      handles: () => true,
      // No policy (the usual case): answered without a promise.
      validate(attributes) {
        if (isExcluded(attributes)) return;
        if (ready && source.hooks().length === 0) return;
        return evaluate(attributes);
      },
    };

    async function evaluate(attributes: AdmissionAttributes): Promise<void> {
      if (!ready) await waitReady(attributes);
      const hooks = source.hooks();
      if (hooks.length === 0) return;

      // The request's namespace, read once (through the watch cache) when a selector or namespaceObject needs it.
      const namespaceReads = new Map<string, Promise<KubeObject | undefined>>();
      const namespace = (name: string): Promise<KubeObject | undefined> => {
        let read = namespaceReads.get(name);
        if (read === undefined) {
          read = (async () => {
            if (namespaces === undefined || name === '') return undefined;
            try {
              return await namespaces.get(undefined, name);
            } catch (e: unknown) {
              if (isNotFound(e)) return undefined;
              throw e;
            }
          })();
          namespaceReads.set(name, read);
        }
        return read;
      };
      const namespaceLabels = async (name: string) => {
        const ns = await namespace(name);
        return ns === undefined ? undefined : ((ns.metadata.labels ?? {}) as Record<string, string>);
      };
      const isNamespaceKind = attributes.kind.group === '' && attributes.kind.version === 'v1' && attributes.kind.kind === 'Namespace';
      let shared: RequestVariables | undefined;
      const sharedVariables = async (): Promise<RequestVariables> => {
        shared ??= requestVariables(attributes, isNamespaceKind || attributes.namespace === '' ? undefined : await namespace(attributes.namespace));
        return shared;
      };

      const denials: Denial[] = [];
      const failures: ValidationFailure[] = [];
      const configError = (policy: CompiledPolicy, binding: ValidatingAdmissionPolicyBinding | undefined, error: unknown): void => {
        const bindingName = binding === undefined ? undefined : (binding.metadata.name ?? '');
        if (policy.failurePolicy === 'Ignore') return;
        const message =
          policy.failurePolicy === 'Fail'
            ? `failed to configure ${binding === undefined ? 'policy' : 'binding'}: ${errorText(error)}`
            : `unrecognized failure policy: '${policy.failurePolicy}'`;
        denials.push({ policy: policy.name, binding: bindingName, message, reason: undefined });
      };

      for (const { policy, bindings } of hooks) {
        const constraints = policy.policy.spec?.matchConstraints;
        if (constraints === undefined || constraints === null) continue;
        try {
          if (!(await matchResourcesMatch(constraints, attributes, namespaceLabels, { isBinding: false }))) continue;
        } catch (e: unknown) {
          configError(policy, undefined, e);
          continue;
        }
        const paramKind = policy.policy.spec?.paramKind;
        if (paramKind !== undefined && paramKind !== null) {
          try {
            paramStore(deps.stores, paramKind);
          } catch (e: unknown) {
            configError(policy, undefined, e);
            continue;
          }
        }
        const annotations = new Map<string, string[]>();
        for (const binding of bindings) {
          const bindingName = binding.metadata.name ?? '';
          const match = binding.spec?.matchResources;
          try {
            if (match !== undefined && match !== null && !(await matchResourcesMatch(match, attributes, namespaceLabels, { isBinding: true }))) continue;
          } catch (e: unknown) {
            configError(policy, binding, e);
            continue;
          }
          let params;
          try {
            params = await collectParams(deps.stores, policy.policy, binding.spec?.paramRef, attributes.namespace);
          } catch (e: unknown) {
            configError(policy, binding, e);
            continue;
          }
          if (params.length === 0) continue;
          const variables = await sharedVariables();
          const actions = binding.spec?.validationActions ?? [];
          for (const param of params) {
            const result = validate(policy, newActivation(policy, variables, param));
            result.decisions.forEach((decision, index) => {
              if (decision.action !== 'deny') return;
              for (const action of actions) {
                if (action === 'Deny') denials.push({ policy: policy.name, binding: bindingName, message: decision.message, reason: decision.reason });
                else if (action === 'Audit') {
                  failures.push({ message: decision.message, policy: binding.spec?.policyName ?? '', binding: bindingName, expressionIndex: index, validationActions: actions });
                } else if (action === 'Warn') {
                  attributes.addWarning(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${decision.message}`);
                }
              }
            });
            for (const annotation of result.auditAnnotations) {
              if (annotation.action === 'publish') {
                const value = annotation.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
                const values = annotations.get(annotation.key) ?? [];
                if (!values.includes(value)) annotations.set(annotation.key, [...values, value]);
              } else if (annotation.action === 'error') {
                denials.push({ policy: policy.name, binding: bindingName, message: annotation.error, reason: undefined });
              }
            }
          }
        }
        for (const [key, values] of annotations) attributes.addAuditAnnotation(`${policy.name}/${key}`, values.join(', '));
      }

      if (failures.length > 0) attributes.addAuditAnnotation(VALIDATION_FAILURE_KEY, goJson(failures.slice(0, MAX_VALIDATION_FAILURES)));
      const first = denials[0];
      if (first !== undefined) throw denialError(attributes, first);
    }
  };
}

export const newValidatingAdmissionPolicy = newValidatingAdmissionPolicyWith();
