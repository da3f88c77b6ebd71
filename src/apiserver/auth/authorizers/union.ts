/**
 * The union authorizer: asks each authorizer in turn and takes the first
 * Allow or Deny; with none, NoOpinion with every reason given (joined by
 * newlines) and every evaluation error, as upstream's union.New. Its rule
 * resolver gathers the rules of every member.
 */
import type { UserInfo } from '../../server/context.js';
import type { AuthorizationResult, Attributes } from './interface.js';
import type { RuleResolvingAuthorizer, RuleSet } from './always.js';

export function newUnionAuthorizer(members: readonly RuleResolvingAuthorizer[]): RuleResolvingAuthorizer {
  return {
    authorize(a: Attributes): Promise<AuthorizationResult> | AuthorizationResult {
      // Answered without a promise while every member answers synchronously (RBAC, Node, the privileged group):
      // a promise only from the first member that returns one (webhook), and for the rest after it.
      const reasons: string[] = [];
      const errors: string[] = [];
      const take = (result: AuthorizationResult): boolean => {
        if (result.evaluationError !== undefined && result.evaluationError !== '') errors.push(result.evaluationError);
        if (result.decision !== 'NoOpinion') return true;
        if (result.reason !== '') reasons.push(result.reason);
        return false;
      };
      const none = (): AuthorizationResult => ({ decision: 'NoOpinion', reason: reasons.join('\n'), ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}) });
      for (let i = 0; i < members.length; i++) {
        const result = members[i]!.authorize(a);
        if (result instanceof Promise) return finishAsync(result, i);
        if (take(result)) return result;
      }
      return none();

      async function finishAsync(pending: Promise<AuthorizationResult>, at: number): Promise<AuthorizationResult> {
        const first = await pending;
        if (take(first)) return first;
        for (let i = at + 1; i < members.length; i++) {
          const result = await members[i]!.authorize(a);
          if (take(result)) return result;
        }
        return none();
      }
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RuleSet> {
      const out: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const member of members) {
        const rules = await member.rulesFor(user, namespace);
        out.resourceRules.push(...rules.resourceRules);
        out.nonResourceRules.push(...rules.nonResourceRules);
        if (rules.incomplete) out.incomplete = true;
        if (rules.evaluationError !== undefined && rules.evaluationError !== '') errors.push(rules.evaluationError);
      }
      return errors.length > 0 ? { ...out, evaluationError: aggregate(errors) } : out;
    },
  };
}

/** utilerrors.NewAggregate's text: one error alone, or `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}
