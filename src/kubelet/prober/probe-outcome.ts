/**
 * What one probe handler run says (upstream pkg/probe's Result plus its
 * output string). A handler that cannot run at all (no such named port, the
 * runtime refused the exec) throws a {@link ProbeError} instead: upstream's
 * "errored" case, retried and then thrown away without moving any threshold.
 */
export type ProbeVerdict = 'success' | 'warning' | 'failure';

export interface ProbeOutcome {
  readonly verdict: ProbeVerdict;
  /** Shown in the Unhealthy/ProbeWarning event ("Liveness probe failed: <output>"). */
  readonly output: string;
}

export class ProbeError extends Error {
  /** The result upstream names in "… probe errored and resulted in <state> state: …" (failure only for a body that could not be read). */
  readonly state: 'unknown' | 'failure';
  constructor(message: string, options?: { cause?: unknown; state?: 'unknown' | 'failure' }) {
    super(message, options);
    this.name = 'ProbeError';
    this.state = options?.state ?? 'unknown';
  }
}

export const success = (output = ''): ProbeOutcome => ({ verdict: 'success', output });
export const warning = (output: string): ProbeOutcome => ({ verdict: 'warning', output });
export const failure = (output: string): ProbeOutcome => ({ verdict: 'failure', output });
