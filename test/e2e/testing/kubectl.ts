/**
 * The real kubectl, at a pinned version: the binaries installed beside the
 * machine's `kubectl` (kubectl.1.27 … kubectl.1.33). Each run gets a fresh
 * cache directory, so discovery and OpenAPI are always fetched from the server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

function findKubectlDir(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      return dirname(realpathSync(join(dir, 'kubectl')));
    } catch {
      // not in this PATH entry
    }
  }
  throw new Error('kubectl is not on PATH');
}

export const KUBECTL_DIR = findKubectlDir();

export type KubectlVersion = '1.27' | '1.28' | '1.29' | '1.30' | '1.31' | '1.32' | '1.33';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Kubectl {
  (...args: string[]): Promise<KubectlResult>;
  readonly version: KubectlVersion;
  /** Run and fail (with kubectl's output) unless it exits 0; resolves with stdout. */
  ok(...args: string[]): Promise<string>;
  /** Start a long-running kubectl (e.g. `get -w`); the caller kills it. */
  readonly env: NodeJS.ProcessEnv;
  readonly binary: string;
}

export function newKubectl(version: KubectlVersion, kubeconfig: string, stdin?: string): Kubectl {
  const home = mkdtempSync(join(tmpdir(), `kubectl-${version}-`));
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, HOME: home, KUBECACHEDIR: join(home, 'cache') };
  const binary = join(KUBECTL_DIR, `kubectl.${version}`);
  const run = (input: string | undefined, args: string[]): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(binary, args, { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1;
        resolve({ code, stdout, stderr });
      });
      if (input !== undefined) child.stdin?.end(input);
      else child.stdin?.end();
    });
  const kubectl = ((...args: string[]) => run(stdin, args)) as Kubectl;
  Object.assign(kubectl, {
    version,
    env,
    binary,
    ok: async (...args: string[]) => {
      const r = await run(stdin, args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
      return r.stdout;
    },
  });
  return kubectl;
}

/** kubectl reading `input` on stdin (for `-f -`). */
export function withStdin(k: Kubectl, kubeconfig: string, input: string): Kubectl {
  return newKubectl(k.version, kubeconfig, input);
}
