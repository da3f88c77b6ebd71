/**
 * /healthz, /livez and /readyz as upstream serves them: `ok` when every check
 * passes; with `?verbose` one `[+]name ok` / `[-]name failed: reason` line per
 * check; `/readyz/<name>` runs one check; `?exclude=name` skips one.
 */
import type { RequestContext } from '../server/context.js';
import { resourceNotFound } from '../../machinery/status.js';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; rejects (or throws) with the reason otherwise. */
  check(): Promise<void>;
}

export async function handleHealth(ctx: RequestContext, endpoint: 'healthz' | 'livez' | 'readyz', checks: readonly HealthCheck[]): Promise<void> {
  const rest = ctx.path.slice(endpoint.length + 1).replace(/^\//, '');
  const excluded = new Set(ctx.query.getAll('exclude'));
  let selected = checks.filter((c) => !excluded.has(c.name));
  if (rest !== '') {
    const one = checks.find((c) => c.name === rest);
    if (one === undefined) throw resourceNotFound();
    selected = [one];
  }
  const results = await Promise.all(
    selected.map(async (c) => {
      try {
        await c.check();
        return { name: c.name, ok: true, reason: '' };
      } catch (e: unknown) {
        return { name: c.name, ok: false, reason: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
  const healthy = results.every((r) => r.ok);
  const verbose = ctx.query.has('verbose') || !healthy;
  let body: string;
  if (!verbose) {
    body = 'ok';
  } else {
    const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
    lines.push(healthy ? `${endpoint} check passed` : `${endpoint} check failed`);
    body = `${lines.join('\n')}\n`;
  }
  ctx.res.writeHead(healthy ? 200 : 500, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache, private',
    'content-length': Buffer.byteLength(body),
  });
  ctx.res.end(body);
}
