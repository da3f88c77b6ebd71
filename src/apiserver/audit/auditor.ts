/**
 * The API server's auditing: a policy that decides each request's level and
 * a backend the events go to. See server/filters/with-audit.ts for where in
 * the pipeline the events are made.
 */
import type { LogBackend } from './log-backend.js';
import type { PolicyEvaluator } from './policy.js';

export interface Auditor {
  readonly policy: PolicyEvaluator;
  readonly backend: LogBackend;
}
