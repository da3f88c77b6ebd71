/**
 * The exec handler: runs the command in the container through the runtime's
 * ExecSync (upstream pkg/probe/exec with the CRI runner). Exit 0 is success,
 * any other exit is failure with the command's output (stdout then stderr,
 * at most 10 KiB); a timeout is a failure whose output is upstream's
 * `command "…" timed out`; any other runtime error means the probe could not
 * run (errored).
 */
import { RuntimeError, type RuntimeService } from '../runtime/interface.js';
import { goQuote } from './go-format.js';
import { failure, ProbeError, success, type ProbeOutcome } from './probe-outcome.js';

/** Upstream reads at most this much of an exec probe's output. */
export const MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

export interface ExecProbeRequest {
  readonly runtime: RuntimeService;
  readonly containerId: string;
  readonly command: readonly string[];
  /** Passed to ExecSync in seconds (fractions when tests scale time). */
  readonly timeoutMs: number;
}

const isDeadlineExceeded = (e: unknown): boolean => e instanceof RuntimeError && e.code === 'DeadlineExceeded';

/** Upstream's TimeoutError text for an ExecSync that hit its deadline. */
export const execTimeoutMessage = (command: readonly string[]): string => `command ${goQuote(command.join(' '))} timed out`;

export async function execProbe(request: ExecProbeRequest): Promise<ProbeOutcome> {
  const { runtime, containerId, command, timeoutMs } = request;
  // The runtime enforces the timeout; this guard only keeps a runtime that ignores it from stalling the worker.
  let guard: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new RuntimeError('DeadlineExceeded', 'exec probe deadline passed')), timeoutMs + Math.max(timeoutMs, 1000));
  });
  try {
    const result = await Promise.race([runtime.execSync(containerId, command, timeoutMs / 1000), deadline]);
    const output = Buffer.concat([result.stdout, result.stderr]).subarray(0, MAX_EXEC_OUTPUT_BYTES).toString('utf8');
    return result.exitCode === 0 ? success(output) : failure(output);
  } catch (e: unknown) {
    if (isDeadlineExceeded(e)) return failure(execTimeoutMessage(command));
    throw new ProbeError(e instanceof Error ? e.message : String(e), { cause: e });
  } finally {
    clearTimeout(guard);
  }
}
