/**
 * What the error stream (channel 3) carries when exec or attach ends, as
 * upstream's kubelet writes it: from v4 on, a metav1.Status as JSON (Go's
 * field order), with reason NonZeroExitCode and an ExitCode cause when the
 * command failed; before v4, only the message of a failure as text.
 */

export interface StreamStatus {
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly causes: readonly { readonly reason?: string; readonly message: string }[] };
  readonly code?: number;
}

export const successStatus = (): StreamStatus => ({ metadata: {}, status: 'Success' });

/** The Status of a command that exited with a non-zero code (the message as containerd's streaming server words it). */
export function exitCodeStatus(exitCode: number, command: readonly string[]): StreamStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** apierrors.NewInternalError(err). */
export function internalErrorStatus(message: string): StreamStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

/** The bytes for the error stream at protocol version `version` (undefined: nothing to send). */
export function encodeStatus(status: StreamStatus, version: number): Buffer | undefined {
  if (version >= 4) return Buffer.from(JSON.stringify(status));
  if (status.status === 'Success') return undefined;
  return Buffer.from(status.message ?? '');
}
