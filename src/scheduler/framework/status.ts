/**
 * The answer of a scheduler plugin at any extension point. Plugins never
 * throw: they return a Status, and its code decides what happens to the pod
 * (upstream's framework.Code, with the same effects on the queue):
 *
 * - Success: go on. A plugin may return `undefined` for Success (no allocation on the hot path).
 * - Error: something broke (not the pod's fault); the pod goes to the backoff queue.
 * - Unschedulable: the pod does not fit this node now; preemption may help,
 *   and the pod is retried when a cluster event the rejecting plugin registered for happens.
 * - UnschedulableAndUnresolvable: as Unschedulable, but preemption on this node cannot help
 *   (e.g. a node selector mismatch), so PostFilter skips the node.
 * - Wait: Permit only: the pod waits (up to a timeout) for an allow or reject.
 * - Skip: PreFilter/PreScore only: this plugin's Filter/Score have nothing to do for this pod.
 * - Pending: the pod waits for something outside the scheduler; retried by events only.
 */
export enum Code {
  Success = 0,
  Error = 1,
  Unschedulable = 2,
  UnschedulableAndUnresolvable = 3,
  Wait = 4,
  Skip = 5,
  Pending = 6,
}

const CODE_NAMES: Readonly<Record<Code, string>> = {
  [Code.Success]: 'Success',
  [Code.Error]: 'Error',
  [Code.Unschedulable]: 'Unschedulable',
  [Code.UnschedulableAndUnresolvable]: 'UnschedulableAndUnresolvable',
  [Code.Wait]: 'Wait',
  [Code.Skip]: 'Skip',
  [Code.Pending]: 'Pending',
};

export class Status {
  /** The plugin that returned it (set by the framework runtime). */
  plugin = '';

  constructor(
    readonly code: Code,
    /** Upstream's reason strings, byte for byte (they end up in FailedScheduling messages). */
    readonly reasons: readonly string[] = [],
    /** For Code.Error: the cause. */
    readonly error?: Error,
  ) {}

  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  /** Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was turned down, nothing broke. */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending;
  }

  /** The reasons joined with ", " (upstream's Status.Message). */
  message(): string {
    if (this.reasons.length === 0 && this.error !== undefined) return this.error.message;
    return this.reasons.join(', ');
  }

  codeName(): string {
    return CODE_NAMES[this.code];
  }

  withPlugin(name: string): this {
    this.plugin = name;
    return this;
  }

  toString(): string {
    return `${this.codeName()}${this.plugin === '' ? '' : ` (${this.plugin})`}: ${this.message()}`;
  }
}

/** What a plugin returns: `undefined` means Success. */
export type PluginStatus = Status | undefined;

export function isSuccess(status: PluginStatus): boolean {
  return status === undefined || status.code === Code.Success;
}

export function codeOf(status: PluginStatus): Code {
  return status === undefined ? Code.Success : status.code;
}

export const unschedulable = (...reasons: string[]): Status => new Status(Code.Unschedulable, reasons);
export const unresolvable = (...reasons: string[]): Status => new Status(Code.UnschedulableAndUnresolvable, reasons);
export const skip = (): Status => new Status(Code.Skip);
export const waitStatus = (...reasons: string[]): Status => new Status(Code.Wait, reasons);
export const pending = (...reasons: string[]): Status => new Status(Code.Pending, reasons);

/** An Error status from anything caught. */
export function errorStatus(cause: unknown): Status {
  const error = cause instanceof Error ? cause : new Error(String(cause));
  return new Status(Code.Error, [error.message], error);
}
