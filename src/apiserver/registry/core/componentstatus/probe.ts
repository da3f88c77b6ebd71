/**
 * The health probes behind ComponentStatus: one Healthy condition per
 * component, filled as upstream's validator does. An HTTP(S) health endpoint
 * (scheduler, controller manager, an etcd member's /health) is healthy on a
 * 2xx or 3xx answer, whose body becomes the message; a refused connection, a
 * timeout or another status code is a failure described in the message (upstream's
 * HTTP prober reports them so). Storage (an etcd server's /health, or the
 * embedded store's /readyz check) is healthy with message `ok`, and a failure
 * puts its text in `error`, as upstream's etcd probe does.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ComponentCondition {
  readonly type: 'Healthy';
  readonly status: 'True' | 'False' | 'Unknown';
  readonly message?: string;
  readonly error?: string;
}

/** Upstream's probeTimeOut. */
export const PROBE_TIMEOUT_MS = 20_000;
/** Upstream's prober reads at most this much of a body. */
const MAX_BODY_BYTES = 10 * 1024;

/** GET a health URL (TLS unverified, as upstream's prober) and turn the answer into a condition. */
export function probeHttp(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ComponentCondition> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (c: ComponentCondition): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(c);
    };
    // Go's error text, which kubectl users know: `Get "URL": …`.
    const failed = (text: string): void => done({ type: 'Healthy', status: 'False', message: `Get ${JSON.stringify(url)}: ${text}` });
    let req: ReturnType<typeof httpRequest>;
    try {
      const get = url.startsWith('https:') ? httpsRequest : httpRequest;
      req = get(url, { method: 'GET', rejectUnauthorized: false, headers: { accept: '*/*', 'user-agent': 'kube-probe/1.33' } });
    } catch (e: unknown) {
      resolve({ type: 'Healthy', status: 'Unknown', error: `failed to construct probe request: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    const timer = setTimeout(() => failed('context deadline exceeded (Client.Timeout exceeded while awaiting headers)'), timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => failed(dialError(url, e)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
        size += chunk.length;
      });
      res.on('error', (e) => done({ type: 'Healthy', status: 'Unknown', error: e.message }));
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 400) done({ type: 'Healthy', status: 'True', message: Buffer.concat(chunks).toString('utf8') });
        else done({ type: 'Healthy', status: 'False', message: `HTTP probe failed with statuscode: ${code}` });
      });
    });
    req.end();
  });
}

/** A connection error in Go's words where there is one (`dial tcp 127.0.0.1:10259: connect: connection refused`). */
function dialError(url: string, e: NodeJS.ErrnoException): string {
  if (e.code === 'ECONNREFUSED') {
    const u = new URL(url);
    const port = u.port !== '' ? u.port : u.protocol === 'https:' ? '443' : '80';
    return `dial tcp ${u.hostname.replace(/^\[|\]$/g, '')}:${port}: connect: connection refused`;
  }
  return e.message;
}

/**
 * An etcd server, at its /health: reported as upstream reports its etcd probe,
 * `ok` when healthy and the failure in `error` otherwise.
 */
export async function probeEtcd(server: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ComponentCondition> {
  const c = await probeHttp(`${server.replace(/\/+$/, '')}/health`, timeoutMs);
  if (c.status !== 'True') return { type: 'Healthy', status: c.status, error: c.error ?? c.message ?? '' };
  let health: unknown;
  try {
    health = (JSON.parse(c.message ?? '') as { health?: unknown }).health;
  } catch {
    // not etcd's JSON answer
  }
  return health === 'true' ? { type: 'Healthy', status: 'True', message: 'ok' } : { type: 'Healthy', status: 'False', error: `unhealthy: ${c.message ?? ''}` };
}

/** The storage health check (the one /readyz runs as `etcd`) as a condition, bounded by the timeout. */
export async function probeStorage(check: () => Promise<void>, timeoutMs = PROBE_TIMEOUT_MS): Promise<ComponentCondition> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return { type: 'Healthy', status: 'True', message: 'ok' };
  } catch (e: unknown) {
    return { type: 'Healthy', status: 'False', error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}
