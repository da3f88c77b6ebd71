/**
 * A real HTTPS server on 127.0.0.1 for unit tests of webhook callers: each
 * request's JSON body goes to `handle`, whose answer is sent as JSON; `hang`
 * keeps the request open, `reset` destroys the connection.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestTLS } from './tls.js';

export type Reply = { status?: number; body: unknown } | 'hang' | 'reset';

export interface TestHttpsServer {
  readonly url: string;
  /** Bodies received, in order. */
  readonly received: unknown[];
  /** Request URLs (path and query) received, in order. */
  readonly paths: string[];
  close(): Promise<void>;
}

export async function startTestHttpsServer(tls: TestTLS, handle: (body: unknown) => Reply): Promise<TestHttpsServer> {
  const received: unknown[] = [];
  const paths: string[] = [];
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push(body);
      paths.push(req.url ?? '');
      const reply = handle(body);
      if (reply === 'hang') return;
      if (reply === 'reset') {
        req.socket.destroy();
        return;
      }
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    received,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
