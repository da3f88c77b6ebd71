/**
 * Where a request's bearer token comes from: a fixed token, a token file
 * (re-read at most once a minute, so rotated projected tokens are picked up),
 * or an exec credential plugin whose token is cached until its
 * expirationTimestamp (and dropped on a 401 so the plugin runs again).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ExecPluginConfig, RestConfig } from './rest-config.js';

export interface TokenSource {
  /** The token for the next request, or undefined for none. */
  token(): Promise<string | undefined>;
  /** The server said 401: forget a cached token. */
  invalidate(): void;
}

export interface TokenSourceOptions {
  /** Milliseconds since the epoch (tests inject a clock). */
  readonly now?: () => number;
}

export function tokenSourceFor(config: RestConfig, options: TokenSourceOptions = {}): TokenSource {
  const now = options.now ?? Date.now;
  if (config.token !== undefined && config.token !== '') {
    const token = config.token;
    return { token: async () => token, invalidate: () => {} };
  }
  if (config.tokenFile !== undefined) return fileTokenSource(config.tokenFile, now);
  if (config.exec !== undefined) return execTokenSource(config.exec, now);
  return { token: async () => undefined, invalidate: () => {} };
}

function fileTokenSource(file: string, now: () => number): TokenSource {
  let cached: { token: string; readAt: number } | undefined;
  return {
    async token() {
      if (cached === undefined || now() - cached.readAt > 60_000) {
        try {
          cached = { token: readFileSync(file, 'utf8').trim(), readAt: now() };
        } catch (e: unknown) {
          throw new Error(`cannot read the token file ${file}: ${(e as Error).message}`, { cause: e });
        }
      }
      return cached.token;
    },
    invalidate() {
      cached = undefined;
    },
  };
}

interface ExecCredentialStatus {
  readonly token?: string;
  readonly expirationTimestamp?: string;
}

function execTokenSource(exec: ExecPluginConfig, now: () => number): TokenSource {
  let cached: { token: string; expiresAt: number } | undefined;
  let running: Promise<string> | undefined;
  const run = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const input = { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
      const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(input) };
      for (const e of exec.env ?? []) env[e.name] = e.value;
      execFile(exec.command, [...(exec.args ?? [])], { env, cwd: exec.cwd, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
        if (error !== null) {
          reject(new Error(`exec credential plugin ${exec.command} failed: ${error.message}${stderr === '' ? '' : `: ${stderr.trim()}`}`, { cause: error }));
          return;
        }
        let credential: { kind?: unknown; status?: ExecCredentialStatus };
        try {
          credential = JSON.parse(stdout) as typeof credential;
        } catch (e: unknown) {
          reject(new Error(`exec credential plugin ${exec.command} printed no JSON ExecCredential`, { cause: e }));
          return;
        }
        const token = credential.status?.token;
        if (credential.kind !== 'ExecCredential' || typeof token !== 'string' || token === '') {
          reject(new Error(`exec credential plugin ${exec.command} printed no status.token in an ExecCredential`));
          return;
        }
        const expiry = credential.status?.expirationTimestamp;
        const expiresAt = expiry === undefined ? Number.POSITIVE_INFINITY : Date.parse(expiry);
        cached = { token, expiresAt: Number.isNaN(expiresAt) ? 0 : expiresAt };
        resolve(token);
      });
    });
  return {
    async token() {
      if (cached !== undefined && now() < cached.expiresAt) return cached.token;
      running ??= run().finally(() => (running = undefined));
      return running;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
