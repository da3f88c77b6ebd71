/**
 * What a simulated container "does", decided once when it is created: run
 * forever (the default), or exit with a code after some milliseconds, or fail
 * to start. Nothing executes; the sim runtime derives the container's state
 * from this program and the clock.
 *
 * Failure injection, first match wins:
 * 1. Annotations of the container, then of the sandbox (the kubelet copies a
 *    pod's annotations onto its sandbox, so a pod can ask for it):
 *    - `sim.k8ts.io/exit-code.<container>` or `sim.k8ts.io/exit-code`: exit with this code;
 *    - `sim.k8ts.io/exit-after-ms.<container>` or `sim.k8ts.io/exit-after-ms`: … after this long (default 0;
 *      alone, it means exit code 0);
 *    - `sim.k8ts.io/start-error.<container>` or `sim.k8ts.io/start-error`: startContainer fails with this message;
 *    - `sim.k8ts.io/exec-exit-code.<container>` or `sim.k8ts.io/exec-exit-code`: what execSync returns (default 0);
 *    - `sim.k8ts.io/start-latency-ms.<container>` or `sim.k8ts.io/start-latency-ms`: overrides the runtime's start latency.
 * 2. The command, for the shapes pod specs and tests use: `true` and `false`,
 *    `sleep S`, and `sh -c` scripts made only of `echo`/`printf`/`true`/
 *    `sleep S` statements (S in seconds, fractions allowed; the sleeps add
 *    up) with an optional last `exit N`, such as `exit 1` or
 *    `echo done; sleep 2; exit 3`. Any other command runs until stopped.
 */

export const SIM_ANNOTATION_PREFIX = 'sim.k8ts.io/';
export const SIM_EXIT_CODE = `${SIM_ANNOTATION_PREFIX}exit-code`;
export const SIM_EXIT_AFTER_MS = `${SIM_ANNOTATION_PREFIX}exit-after-ms`;
export const SIM_START_ERROR = `${SIM_ANNOTATION_PREFIX}start-error`;
export const SIM_EXEC_EXIT_CODE = `${SIM_ANNOTATION_PREFIX}exec-exit-code`;
export const SIM_START_LATENCY_MS = `${SIM_ANNOTATION_PREFIX}start-latency-ms`;

export interface SimProgram {
  /** When set, the container exits with `code` `afterMs` after it started. */
  readonly exit?: { readonly code: number; readonly afterMs: number };
  /** When set, startContainer fails with this message (exit code 128, reason StartError). */
  readonly startError?: string;
  readonly execExitCode: number;
  /** Undefined: the runtime's default start latency. */
  readonly startLatencyMs?: number;
}

export interface SimProgramInput {
  readonly containerName: string;
  readonly argv: readonly string[];
  readonly containerAnnotations: Readonly<Record<string, string>>;
  readonly sandboxAnnotations: Readonly<Record<string, string>>;
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash']);
const basename = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const SECONDS = '(\\d+(?:\\.\\d+)?)';
/** Statements a script may hold and still have a known end: output, sleeps, no-ops, and a final exit. */
const STATEMENT_SLEEP = new RegExp(`^sleep ${SECONDS}$`);
const STATEMENT_EXIT = /^exit (\d{1,3})$/;
const STATEMENT_HARMLESS = /^(echo|printf|true|:)(\s|$)/;

/** The end of a `sh -c` script made only of echo/printf/true/sleep statements and an optional last `exit N`. */
function exitOfScript(script: string): { code: number; afterMs: number } | undefined {
  if (/[`|]|\$\(/.test(script)) return undefined; // pipes and command substitutions run something else
  const statements = script.split(/;|&&|\n/).map((t) => t.trim()).filter((t) => t !== '');
  let afterMs = 0;
  for (const [i, statement] of statements.entries()) {
    const sleep = STATEMENT_SLEEP.exec(statement);
    const exit = STATEMENT_EXIT.exec(statement);
    if (sleep) afterMs += Math.round(Number(sleep[1]) * 1000);
    else if (exit && i === statements.length - 1) return { code: Number(exit[1]) % 256, afterMs };
    else if (!STATEMENT_HARMLESS.test(statement)) return undefined;
  }
  return { code: 0, afterMs };
}

/** The exit a command implies, or undefined when it runs until stopped. */
export function exitOfCommand(argv: readonly string[]): { code: number; afterMs: number } | undefined {
  const [file, ...rest] = argv;
  if (file === undefined) return undefined;
  const name = basename(file);
  if (rest.length === 0 && (name === 'true' || name === 'false')) return { code: name === 'true' ? 0 : 1, afterMs: 0 };
  if (name === 'sleep' && rest.length === 1) {
    const m = new RegExp(`^${SECONDS}$`).exec(rest[0]!);
    return m ? { code: 0, afterMs: Math.round(Number(m[1]) * 1000) } : undefined;
  }
  if (!SHELLS.has(name) || rest[0] !== '-c' || rest[1] === undefined) return undefined;
  return exitOfScript(rest[1]);
}

function lookup(input: SimProgramInput, key: string): string | undefined {
  const perContainer = `${key}.${input.containerName}`;
  for (const source of [input.containerAnnotations, input.sandboxAnnotations]) {
    const v = source[perContainer] ?? source[key];
    if (v !== undefined) return v;
  }
  return undefined;
}

function nonNegativeInt(key: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw new Error(`annotation ${key}: want a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text.trim());
}

/** Reads the program of a container; throws (a message for InvalidArgument) on a malformed annotation. */
export function simProgramOf(input: SimProgramInput): SimProgram {
  const exitCode = nonNegativeInt(SIM_EXIT_CODE, lookup(input, SIM_EXIT_CODE));
  const exitAfterMs = nonNegativeInt(SIM_EXIT_AFTER_MS, lookup(input, SIM_EXIT_AFTER_MS));
  const startLatencyMs = nonNegativeInt(SIM_START_LATENCY_MS, lookup(input, SIM_START_LATENCY_MS));
  const execExitCode = nonNegativeInt(SIM_EXEC_EXIT_CODE, lookup(input, SIM_EXEC_EXIT_CODE)) ?? 0;
  const startError = lookup(input, SIM_START_ERROR);
  const exit =
    exitCode !== undefined || exitAfterMs !== undefined ? { code: (exitCode ?? 0) % 256, afterMs: exitAfterMs ?? 0 } : exitOfCommand(input.argv);
  return {
    ...(exit !== undefined ? { exit } : {}),
    ...(startError !== undefined ? { startError } : {}),
    execExitCode: execExitCode % 256,
    ...(startLatencyMs !== undefined ? { startLatencyMs } : {}),
  };
}
