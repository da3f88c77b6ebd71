/**
 * `kubectl get RESOURCE -w --output-watch-events -o json` as a stream of
 * events: kubectl prints one watch event per line ({"type":…,"object":…}),
 * each handed to the listeners with the moment this process read it. The
 * journey test and the bench observe every stage through such watches, as a
 * person at a terminal would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Kubectl } from '../../testing/kubectl.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ObservedEvent<T> {
  readonly type: WatchEventType;
  readonly object: T;
  /** Date.now() when the line was read. */
  readonly at: number;
}

export interface KubectlWatch<T> {
  /** Every event so far, in order. */
  readonly events: readonly ObservedEvent<T>[];
  /** Call `listener` for every event from now on (not for those already seen); returns a function that removes it. */
  onEvent(listener: (event: ObservedEvent<T>) => void): () => void;
  /** Resolve once `check` holds for some event (past or future); reject at the deadline or when kubectl exits. */
  until(check: (event: ObservedEvent<T>) => boolean, description: string, timeoutMs?: number): Promise<ObservedEvent<T>>;
  /** What kubectl printed on stderr. */
  stderr(): string;
  stop(): Promise<void>;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly selector?: string;
}

export function startKubectlWatch<T>(kubectl: Kubectl, resource: string, options: WatchOptions = {}): KubectlWatch<T> {
  const args = ['get', resource, '-w', '--output-watch-events', '-o', 'json'];
  if (options.namespace !== undefined) args.push('-n', options.namespace);
  if (options.selector !== undefined) args.push('-l', options.selector);
  const child: ChildProcess = spawn(kubectl.binary, args, { env: kubectl.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: ObservedEvent<T>[] = [];
  const listeners = new Set<(e: ObservedEvent<T>) => void>();
  const exitListeners = new Set<() => void>();
  let pending = '';
  let errors = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const at = Date.now();
    pending += chunk.toString('utf8');
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line === '') continue;
      const parsed = JSON.parse(line) as { type: WatchEventType; object: T };
      const event: ObservedEvent<T> = { type: parsed.type, object: parsed.object, at };
      events.push(event);
      for (const l of listeners) l(event);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      resolve();
      for (const l of exitListeners) l();
    }),
  );

  const onEvent = (listener: (event: ObservedEvent<T>) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

  const until = (check: (event: ObservedEvent<T>) => boolean, description: string, timeoutMs = 30_000): Promise<ObservedEvent<T>> =>
    new Promise((resolve, reject) => {
      const seen = events.find(check);
      if (seen !== undefined) return resolve(seen);
      const done = (): void => {
        clearTimeout(timer);
        remove();
        exitListeners.delete(onExit);
      };
      const remove = onEvent((event) => {
        if (!check(event)) return;
        done();
        resolve(event);
      });
      const onExit = (): void => {
        done();
        reject(new Error(`kubectl ${args.join(' ')} exited before ${description}: ${errors}`));
      };
      exitListeners.add(onExit);
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description} (kubectl ${args.join(' ')}; ${events.length} events)`));
      }, timeoutMs);
    });

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { events, onEvent, until, stderr: () => errors, stop };
}
