/**
 * Runs iptables-restore / iptables-save without a shell, in the current
 * network namespace or in a named one (/run/netns/NAME, through nsenter).
 */
import { spawn } from 'node:child_process';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Command {
  readonly file: string;
  readonly args: readonly string[];
  /** Written to the command's stdin (then closed). */
  readonly stdin?: string;
}

/** Runs one command; rejects only when it cannot be started (e.g. ENOENT). */
export type CommandRunner = (command: Command) => Promise<CommandResult>;

export interface CommandRunnerOptions {
  /** A network namespace created with `ip netns add NAME`; absent: the current one. */
  readonly netns?: string;
}

export function newCommandRunner(options: CommandRunnerOptions = {}): CommandRunner {
  return (command) => {
    const [file, args] =
      options.netns === undefined
        ? [command.file, command.args]
        : ['nsenter', [`--net=/run/netns/${options.netns}`, '--', command.file, ...command.args]];
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => stdout.push(b));
      child.stderr.on('data', (b: Buffer) => stderr.push(b));
      child.on('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ENOENT' ? new Error(`${file} not found: is it installed and on PATH?`) : err),
      );
      child.on('close', (code, signal) =>
        resolve({
          code: code ?? (signal !== null ? 128 : 1),
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
        }),
      );
      // A command that exits without reading its input closes the pipe: ignore EPIPE, the exit code tells.
      child.stdin.on('error', () => {});
      child.stdin.end(command.stdin ?? '');
    });
  };
}
