/**
 * Between the process runtime (shimd-client.ts) and its node's shim daemon
 * (shimd.ts), over a unix socket in Linux's abstract namespace named after the
 * runtime's state directory: one daemon per state directory, found again by a
 * restarted kubelet, and released by the kernel when the daemon ends.
 *
 * Each message is one JSON line. The runtime sends `{"start": DIR}` for each
 * container to start (DIR holds its container.json); the daemon answers each
 * with `{"dir": DIR}` once the start is recorded in DIR/state.json (the
 * command runs, or could not be started: a StartError), or with
 * `{"dir": DIR, "error": MESSAGE}` when the directory held nothing to start.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

export interface ShimdRequest {
  readonly start: string;
}

export interface ShimdReply {
  readonly dir: string;
  readonly error?: string;
}

/** The daemon's socket for a state directory (abstract: no path length limit, nothing to clean up). */
export function shimdSocketName(stateDir: string): string {
  return `\0k8ts-shimd-${createHash('sha256').update(resolve(stateDir)).digest('hex').slice(0, 32)}`;
}

/** Splits a stream of bytes into JSON lines; a line that is not JSON goes to `bad`. */
export function jsonLines<T>(onMessage: (message: T) => void, bad: (line: string) => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line === '') continue;
      let message: T;
      try {
        message = JSON.parse(line) as T;
      } catch {
        bad(line);
        continue;
      }
      onMessage(message);
    }
  };
}
