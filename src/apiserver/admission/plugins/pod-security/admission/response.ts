/** What one PodSecurity evaluation decides: allow or refuse, plus warnings and audit annotations (keys without the prefix). */
import type { StatusError } from '../../../../../machinery/status.js';

export interface PodSecurityResponse {
  readonly allowed: boolean;
  /** The refusal (403 Forbidden, 422 Invalid, 500) when not allowed. */
  readonly error?: StatusError;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

export const ALLOW: PodSecurityResponse = { allowed: true, warnings: [], auditAnnotations: {} };

export const allowWith = (o: { warnings?: readonly string[]; auditAnnotations?: Readonly<Record<string, string>> }): PodSecurityResponse => ({
  allowed: true,
  warnings: o.warnings ?? [],
  auditAnnotations: o.auditAnnotations ?? {},
});
