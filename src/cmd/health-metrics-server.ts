/**
 * The plain-HTTP /healthz, /livez, /readyz and /metrics endpoint of the
 * controller manager and the scheduler.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** Serve /healthz and /metrics; resolves with the listening server. */
export async function serveHealthAndMetrics(bindAddress: string, port: number, registry: Registry): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed\n');
    } else if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
