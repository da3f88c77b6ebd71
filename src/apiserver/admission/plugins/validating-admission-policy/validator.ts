/**
 * One policy evaluated for one binding and param (upstream's validator):
 * match conditions first (any false skips the policy; errors follow the
 * failurePolicy), then every validation, each a decision — admit, deny with
 * its reason and message (messageExpression, else message, else
 * `failed expression: …`), or an evaluation error that denies under Fail and
 * admits under Ignore — then the audit annotations.
 */
import type { CompiledPolicy } from './compiled-policy.js';

export type Decision =
  | { readonly action: 'admit'; readonly evaluation: 'admit' | 'error'; readonly message?: string }
  | { readonly action: 'deny'; readonly evaluation: 'deny' | 'error'; readonly message: string; readonly reason?: string };

export type AuditAnnotationResult =
  | { readonly action: 'publish'; readonly key: string; readonly value: string }
  | { readonly action: 'error'; readonly key: string; readonly error: string }
  | { readonly action: 'exclude'; readonly key: string };

export interface ValidateResult {
  readonly decisions: readonly Decision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

/** Upstream's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;

const errorDecision = (policy: CompiledPolicy, message: string): Decision =>
  policy.failurePolicy === 'Ignore' ? { action: 'admit', evaluation: 'error', message } : { action: 'deny', evaluation: 'error', message };

export function validate(policy: CompiledPolicy, activation: Readonly<Record<string, unknown>>): ValidateResult {
  const errors: string[] = [];
  for (const condition of policy.matchConditions) {
    const result = condition.expression.evaluate(activation);
    if (result.error !== undefined) errors.push(result.error);
    else if (result.value === false) return { decisions: [], auditAnnotations: [] };
  }
  if (errors.length > 0) {
    if (policy.failurePolicy === 'Ignore') return { decisions: [], auditAnnotations: [] };
    return { decisions: [errorDecision(policy, errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`)], auditAnnotations: [] };
  }

  const decisions = policy.validations.map((validation): Decision => {
    const result = validation.expression.evaluate(activation);
    if (result.error !== undefined) return errorDecision(policy, result.error);
    if (result.value === true) return { action: 'admit', evaluation: 'admit' };
    let message = '';
    const fromExpression = validation.messageExpression?.evaluate(activation);
    if (fromExpression !== undefined && fromExpression.error === undefined && typeof fromExpression.value === 'string') {
      message = fromExpression.value.trim();
      if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
    }
    if (message === '' && validation.message !== undefined) message = validation.message.trim();
    if (message === '') message = `failed expression: ${validation.expression.expression.trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: validation.reason ?? 'Invalid' };
  });

  const auditAnnotations = policy.auditAnnotations.map((annotation): AuditAnnotationResult => {
    const key = annotation.key;
    const result = annotation.valueExpression.evaluate(activation);
    if (result.error !== undefined) return policy.failurePolicy === 'Ignore' ? { action: 'exclude', key } : { action: 'error', key, error: result.error };
    if (result.value === null) return { action: 'exclude', key };
    if (typeof result.value === 'string') {
      const value = result.value.trim();
      return value === '' ? { action: 'exclude', key } : { action: 'publish', key, value };
    }
    return {
      action: 'error',
      key,
      error: `valueExpression '${annotation.valueExpression.expression}' resulted in unsupported return type: ${celTypeOf(result.value)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}

function celTypeOf(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    default:
      return Array.isArray(value) ? 'list' : 'map';
  }
}
