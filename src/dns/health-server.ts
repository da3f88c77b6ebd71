/**
 * The DNS component's HTTP endpoint: /healthz (the process serves), /readyz
 * (200 once the informers have synced and the DNS listeners are up, 503
 * before: CoreDNS's `ready` plugin), /metrics (Prometheus text).
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface HealthServerOptions {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
  readonly ready: () => boolean;
}

export async function startHealthServer(options: HealthServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed\n');
    } else if (path === '/healthz' || path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
    } else if (path === '/readyz') {
      if (options.ready()) res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
      else res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('informers not synced\n');
    } else if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
        (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
