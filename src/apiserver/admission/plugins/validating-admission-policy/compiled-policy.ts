/**
 * A ValidatingAdmissionPolicy with every expression compiled once: match
 * conditions, variables, validations (expression and messageExpression) and
 * audit annotations, in the environment with or without `params`. A compile
 * error never throws: it stays on the expression and fails (or, with
 * failurePolicy Ignore, is ignored) when a request reaches it, as upstream.
 */
import type { ValidatingAdmissionPolicy } from '../../../../api/admissionregistration/v1/policy-types.js';
import { policyEnvironments } from './cel/environment.js';
import { compileExpression, type CompiledExpression } from './cel/program.js';

export interface CompiledValidation {
  readonly expression: CompiledExpression;
  readonly message: string | undefined;
  readonly messageExpression: CompiledExpression | undefined;
  readonly reason: string | undefined;
}

export interface CompiledPolicy {
  readonly policy: ValidatingAdmissionPolicy;
  readonly name: string;
  readonly failurePolicy: 'Fail' | 'Ignore' | string;
  readonly matchConditions: readonly { readonly name: string; readonly expression: CompiledExpression }[];
  readonly variables: readonly { readonly name: string; readonly expression: CompiledExpression }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly valueExpression: CompiledExpression }[];
}

export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  const envs = policyEnvironments();
  const env = spec.paramKind !== undefined && spec.paramKind !== null ? envs.withParams : envs.withoutParams;
  return {
    policy,
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConditions: (spec.matchConditions ?? []).map((c) => ({ name: c.name ?? '', expression: compileExpression(env, c.expression ?? '', 'bool') })),
    variables: (spec.variables ?? []).map((v) => ({ name: v.name ?? '', expression: compileExpression(env, v.expression ?? '', 'any') })),
    validations: (spec.validations ?? []).map((v) => ({
      expression: compileExpression(env, v.expression ?? '', 'bool'),
      message: v.message,
      messageExpression: v.messageExpression === undefined || v.messageExpression === '' ? undefined : compileExpression(env, v.messageExpression, 'string'),
      reason: v.reason,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key ?? '', valueExpression: compileExpression(env, a.valueExpression ?? '', 'string or null') })),
  };
}
