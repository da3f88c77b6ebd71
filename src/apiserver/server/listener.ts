/**
 * The secure listener: one HTTPS port serving HTTP/2 (negotiated with ALPN)
 * and HTTP/1.1 (kubectl's exec, attach and port-forward upgrade HTTP/1.1
 * connections). Client certificates are requested but not required: a request
 * without one is anonymous, and authentication decides what it may do.
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Duplex } from 'node:stream';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Handler, RequestContext } from './context.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { parseRequestTarget } from './request-target.js';

/** The request info until withRequestInfo reads the request's own (the same for every request, and read-only). */
const ARRIVING: RequestInfo = Object.freeze({ ...parseRequestInfo('GET', '/', new URLSearchParams()), parts: Object.freeze([]) });

/** The context of a request as it arrives (an HTTP/2 or HTTP/1.1 request, or an HTTP/1.1 upgrade): the filters fill in the rest. */
function newContext(req: RequestContext['req'], res: RequestContext['res']): RequestContext {
  const { path, query } = parseRequestTarget(req.url ?? '/');
  return {
    req,
    res,
    path,
    query,
    info: ARRIVING,
    user: undefined,
    start: process.hrtime.bigint(),
    warnings: [],
  };
}

export interface ListenerOptions {
  readonly cert: string;
  readonly key: string;
  /** CA bundle that client certificates are verified against. */
  readonly clientCA: string;
  readonly host: string;
  readonly port: number;
  /**
   * Where connections come from (`k8ts apiserver --workers`): 'port' (the
   * default) accepts them here; a `route` function accepts them here too and
   * decides who serves each: another process, or this one (`serveHere`);
   * 'handed' binds no port, and connections arrive through {@link Listener.accept}.
   */
  readonly connections?: 'port' | 'handed' | { readonly route: (socket: Socket, serveHere: (socket: Socket) => void) => void };
}

export interface Listener {
  readonly server: Http2SecureServer;
  readonly port: number;
  /** Serve a connection accepted by another process (a `--workers` worker gets its share from the primary). */
  accept(socket: Socket): void;
  /** Stop accepting; resolves when every connection has closed (callers end watches first). */
  close(): Promise<void>;
  /** Close every connection: HTTP/2 sessions with GOAWAY, then any socket still open. */
  closeConnections(): void;
}

export async function listen(options: ListenerOptions, handler: Handler): Promise<Listener> {
  const server = createSecureServer({
    cert: options.cert,
    key: options.key,
    ca: options.clientCA,
    requestCert: true,
    rejectUnauthorized: false,
    allowHTTP1: true,
    // Many concurrent watches share one HTTP/2 connection (client-go multiplexes them).
    settings: { maxConcurrentStreams: 1000 },
  });
  server.on('request', (req: Http2ServerRequest, res: Http2ServerResponse) => void handler(newContext(req, res)));
  // HTTP/1.1 upgrades (exec, attach, port-forward) run the same pipeline; until a handler takes the
  // socket over, `res` is a plain HTTP/1.1 response on it, and the connection ends with that response.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as import('node:net').Socket);
    res.once('finish', () => {
      res.detachSocket(socket as import('node:net').Socket);
      socket.end();
    });
    void handler({ ...newContext(req, res), upgrade: { socket, head } });
  });
  // A broken client connection must never take the server down.
  server.on('sessionError', () => {});
  server.on('tlsClientError', () => {});
  const source = options.connections ?? 'port';
  // A connection taken from the port by this process, or handed over by the primary: TLS and HTTP/2 start here.
  const accept = (socket: Socket): void => {
    server.emit('connection', socket);
    socket.resume();
  };
  let front: NetServer | Http2SecureServer | undefined;
  if (source === 'port') front = server;
  else if (source !== 'handed') {
    const { route } = source;
    // Paused until routed, so that no byte is read by a process that will not serve the connection.
    front = createNetServer({ pauseOnConnect: true }, (socket) => route(socket, accept));
  }
  if (front !== undefined) {
    const listening = front;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(options.port, options.host, () => {
        listening.off('error', reject);
        resolve();
      });
    });
  }
  const sockets = new Set<import('node:tls').TLSSocket>();
  server.on('secureConnection', (socket: import('node:tls').TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const port = front === undefined ? options.port : (front.address() as AddressInfo).port;
  /** Resolves once no connection is open. */
  const drained = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (sockets.size === 0) resolve();
        else [...sockets][0]!.once('close', () => setImmediate(check));
      };
      check();
    });
  return {
    server,
    port,
    accept,
    close: () =>
      front === server
        ? new Promise<void>((resolve) => {
            server.close(() => resolve());
          })
        : // Not net.Server.close's callback: it counts the raw sockets it accepted, which TLS wrapped here or another
          // process took over, and would wait for ever. This process's own connections are what it waits for.
          (front?.close(), drained()),
    closeConnections: () => {
      for (const session of sessions) session.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
