/**
 * Why a command could not be started, worded as runc words it inside
 * containerd's errors (`exec: "sleepy": executable file not found in $PATH`),
 * instead of Node's `spawn sleepy ENOENT`: users and tools look for runc's
 * words in a container's StartError message and in a failed exec's Status.
 */
import { existsSync } from 'node:fs';

export function startErrorMessage(file: string, cwd: string | undefined, e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  // Node reports a missing working directory as ENOENT of the command itself.
  if (code === 'ENOENT' && cwd !== undefined && cwd !== '' && !existsSync(cwd)) {
    return `chdir to cwd (${JSON.stringify(cwd)}) set in config.json failed: no such file or directory`;
  }
  const quoted = JSON.stringify(file);
  if (code === 'ENOENT') return file.includes('/') ? `exec: ${quoted}: stat ${file}: no such file or directory` : `exec: ${quoted}: executable file not found in $PATH`;
  if (code === 'EACCES') return `exec: ${quoted}: permission denied`;
  return e instanceof Error ? e.message : String(e);
}
