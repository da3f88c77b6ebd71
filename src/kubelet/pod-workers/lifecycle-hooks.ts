/**
 * postStart and preStop hooks (upstream's lifecycle handler runner): exec
 * runs the command in the container, httpGet requests the container's
 * address (the pod IP unless the hook names a host), sleep waits. A hook
 * fails with a message in upstream's words; the caller turns it into a
 * FailedPostStartHook / FailedPreStopHook event.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LifecycleHandler } from 'kubernetes-types/core/v1.js';
import type { RuntimeService } from '../runtime/interface.js';
import type { ContainerSpec, Pod } from '../types.js';

/** `<name>_<namespace>(<uid>)`, upstream's format.Pod. */
export const formatPod = (pod: Pod): string => `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;

export class HookError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HookError';
  }
}

export interface HookContext {
  readonly runtime: RuntimeService;
  readonly pod: Pod;
  readonly container: ContainerSpec;
  readonly containerId: string;
  /** Where an httpGet without a host connects. */
  readonly podIP: string;
  /** Upper bound for the hook (seconds). */
  readonly timeoutSeconds: number;
}

function resolvePort(port: number | string, container: ContainerSpec): number | undefined {
  if (typeof port === 'number') return port;
  const byName = container.ports?.find((p) => p.name === port);
  if (byName !== undefined) return byName.containerPort;
  const n = Number.parseInt(port, 10);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

function httpGet(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'GET', headers, timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Get "${url.href}": context deadline exceeded`)));
    req.on('error', reject);
    req.end();
  });
}

/** Runs the handler; rejects with a HookError whose message is upstream's. */
export async function runLifecycleHandler(handler: LifecycleHandler, context: HookContext): Promise<void> {
  const { pod, container } = context;
  if (handler.exec !== undefined) {
    const command = handler.exec.command ?? [];
    let result;
    try {
      result = await context.runtime.execSync(context.containerId, command, context.timeoutSeconds);
    } catch (e: unknown) {
      const message = e instanceof Error ? e.message : String(e);
      throw new HookError(`Exec lifecycle hook ([${command.join(' ')}]) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${message}, message: ""`, { cause: e });
    }
    if (result.exitCode !== 0) {
      const output = Buffer.concat([result.stdout, result.stderr]).toString('utf8');
      throw new HookError(
        `Exec lifecycle hook ([${command.join(' ')}]) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: command '${command.join(' ')}' exited with ${result.exitCode}: ${output}, message: ${JSON.stringify(output)}`,
      );
    }
    return;
  }
  if (handler.httpGet !== undefined) {
    const get = handler.httpGet;
    const path = get.path ?? '/';
    const port = resolvePort(get.port, container);
    const fail = (message: string, cause?: unknown): HookError =>
      new HookError(`HTTP lifecycle hook (${path}) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${message}`, cause === undefined ? undefined : { cause });
    if (port === undefined) throw fail(`couldn't find port: ${String(get.port)} in ${container.name}`);
    const host = get.host !== undefined && get.host !== '' ? get.host : context.podIP;
    const scheme = (get.scheme ?? 'HTTP').toLowerCase();
    const url = new URL(`${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`);
    url.pathname = path.startsWith('/') ? path.split('?')[0]! : `/${path}`;
    const headers: Record<string, string> = { 'User-Agent': 'kube-lifecycle/1.32' };
    for (const h of get.httpHeaders ?? []) headers[h.name] = h.value;
    let status: number;
    try {
      status = await httpGet(url, headers, context.timeoutSeconds * 1000);
    } catch (e: unknown) {
      throw fail(e instanceof Error ? e.message : String(e), e);
    }
    if (status < 200 || status >= 400) throw fail(`HTTP probe failed with statuscode: ${status}`);
    return;
  }
  const sleep = (handler as { sleep?: { seconds: number } }).sleep;
  if (sleep !== undefined) {
    const ms = Math.min(sleep.seconds, context.timeoutSeconds) * 1000;
    await new Promise<void>((resolve) => setTimeout(resolve, ms));
    return;
  }
  throw new HookError(`Cannot run handler: unknown handler type for Container "${container.name}" in Pod "${formatPod(pod)}"`);
}
