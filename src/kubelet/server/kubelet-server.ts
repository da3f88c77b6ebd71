/**
 * The kubelet's HTTPS server (see interface.ts for the endpoints): every
 * request is authenticated and authorized first (auth.ts), then routed. Logs
 * are read from the CRI log files (cri-log-reader.ts); exec, attach and
 * port-forward upgrade the connection to SPDY/3.1 or a WebSocket and bridge
 * it to the runtime's streams (../streaming/). Errors are plain text, as
 * upstream's kubelet (go-restful) writes them.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocketServer, type WebSocket } from 'ws';
import { POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../runtime/labels.js';
import type { Container, PodSandbox } from '../runtime/interface.js';
import { PODS } from '../../client/rest/resources.js';
import type { Pod } from '../types.js';
import { isSpdyRequest, isUpgradeRequest, isWebSocketRequest, writeHttpError, writeSwitchingProtocols } from '../streaming/http-upgrade.js';
import { serveSpdyPortForward, type PortForwardTarget } from '../streaming/portforward/spdy.js';
import { parsePortParams, PORTFORWARD_WEBSOCKET_PROTOCOLS, serveWebSocketPortForward } from '../streaming/portforward/websocket.js';
import {
  HEADER_ACCEPTED_PROTOCOL_VERSIONS,
  HEADER_PROTOCOL_VERSION,
  headerValues,
  negotiateProtocol,
  PORTFORWARD_PROTOCOL,
  PORTFORWARD_TUNNEL_PROTOCOL,
  REMOTECOMMAND_SPDY_PROTOCOLS,
} from '../streaming/protocols.js';
import { serveRemoteCommand, type RemoteCommandStreams } from '../streaming/remotecommand/serve.js';
import { acceptSpdyRemoteCommandStreams, type RemoteCommandFlags } from '../streaming/remotecommand/spdy.js';
import { REMOTECOMMAND_WEBSOCKET_PROTOCOLS, webSocketRemoteCommandStreams } from '../streaming/remotecommand/websocket.js';
import { KubeletAuth } from './auth.js';
import { findContainers, findSandbox, lastTerminatedOf, previousAttempt, waitingReasonOf, type LastTerminated } from './container-lookup.js';
import { parseRfc3339Nanos, readCriLog } from './cri-log-reader.js';
import type { KubeletServer, KubeletServerOptions } from './interface.js';

/** How long a client has to open every stream of an exec or port-forward (upstream's default). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

/** An error answered before any upgrade: status code and plain-text message. */
class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string | readonly string[]>> = {},
  ) {
    super(message);
  }
}

/** The request as the handlers see it: a plain response, or an upgradeable socket. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly url: URL;
  readonly res?: ServerResponse;
  readonly upgrade?: { readonly socket: Duplex; readonly head: Buffer };
}

const podFullName = (sandbox: PodSandbox): string => `${sandbox.metadata.name}_${sandbox.metadata.namespace}`;

/** Go's strconv.ParseBool, as query parameters decode into booleans. */
function parseBool(value: string | null, name: string): boolean {
  if (value === null) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(value)) return false;
  throw new HttpError(400, `{"message": "Unable to decode query."}`, { _param: name });
}

function parseInteger(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (!/^-?\d+$/.test(value)) throw new HttpError(400, '{"message": "Unable to decode query."}');
  return Number(value);
}

export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const auth = new KubeletAuth({ nodeName: options.nodeName, client: options.client });
  const log = options.logger;
  const runtime = options.runtime;
  const server: Server = createServer({
    cert: readFileSync(options.tlsCertFile),
    key: readFileSync(options.tlsPrivateKeyFile),
    ca: readFileSync(options.clientCaFile),
    requestCert: true,
    rejectUnauthorized: false,
  });
  const chosenProtocol = new WeakMap<IncomingMessage, string>();
  // The subprotocol is chosen per endpoint before the handshake (acceptWebSocket); ws echoes it.
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_protocols: Set<string>, req: IncomingMessage): string | false => chosenProtocol.get(req) || false,
  });
  const openSockets = new Set<Socket>();
  const stopping = new AbortController();
  server.on('secureConnection', (socket: Socket) => {
    openSockets.add(socket);
    socket.once('close', () => openSockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);

  const fail = (x: Exchange, e: unknown): void => {
    const error = e instanceof HttpError ? e : new HttpError(500, e instanceof Error ? e.message : String(e));
    const headers = Object.fromEntries(Object.entries(error.headers).filter(([k]) => !k.startsWith('_')));
    if (x.upgrade !== undefined) {
      writeHttpError(x.upgrade.socket, error.code, error.message, headers);
    } else if (x.res !== undefined && !x.res.headersSent) {
      x.res.writeHead(error.code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers });
      x.res.end(`${error.message}\n`);
    } else x.res?.end();
  };

  /** Accept a WebSocket with the protocol chosen among `supported`; undefined after answering 403 when none fits. */
  const acceptWebSocket = async (x: Exchange, supported: readonly string[]): Promise<{ ws: WebSocket; protocol: string } | undefined> => {
    const requested = headerValues(x.req.headers['sec-websocket-protocol']);
    const protocol = requested.length === 0 ? '' : negotiateProtocol(requested, supported);
    if (protocol === undefined) {
      throw new HttpError(403, `requested protocol(s) are not supported: [${requested.join(' ')}]; supports [${supported.join(' ')}]`);
    }
    chosenProtocol.set(x.req, protocol);
    const { socket, head } = x.upgrade!;
    const ws = await new Promise<WebSocket>((resolve) => wss.handleUpgrade(x.req, socket, head, resolve));
    return { ws, protocol };
  };

  /** The SPDY handshake: negotiate X-Stream-Protocol-Version and switch protocols; returns the protocol and the transport. */
  const upgradeSpdy = (x: Exchange, supported: readonly string[]): { protocol: string; transport: Duplex } => {
    const values = x.req.headers[HEADER_PROTOCOL_VERSION];
    if (values === undefined) {
      throw new HttpError(400, `unable to upgrade: header X-Stream-Protocol-Version does not exist in request with ${Object.keys(x.req.headers).length} headers`);
    }
    const client = headerValues(values);
    const protocol = negotiateProtocol(client, supported);
    if (protocol === undefined) {
      throw new HttpError(403, `unable to upgrade: unable to negotiate protocol: client supports [${client.join(' ')}], server accepts [${supported.join(' ')}]`, {
        [HEADER_ACCEPTED_PROTOCOL_VERSIONS]: supported,
      });
    }
    if (x.upgrade === undefined || !isSpdyRequest(x.req)) {
      throw new HttpError(400, 'unable to upgrade: missing upgrade headers in request');
    }
    const { socket, head } = x.upgrade;
    writeSwitchingProtocols(socket, { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': protocol });
    if (head.length > 0) socket.unshift(head);
    return { protocol, transport: socket };
  };

  const sandboxOf = async (namespace: string, pod: string): Promise<PodSandbox> => {
    const sandbox = await findSandbox(runtime, namespace, pod);
    if (sandbox === undefined) throw new HttpError(404, 'pod does not exist');
    return sandbox;
  };

  const runningContainer = async (namespace: string, pod: string, name: string): Promise<Container> => {
    await sandboxOf(namespace, pod);
    const running = (await findContainers(runtime, namespace, pod, name)).find((c) => c.state === 'CONTAINER_RUNNING');
    if (running === undefined) throw new HttpError(500, `container not found ("${name}")`);
    return running;
  };

  const remoteCommand = async (x: Exchange, kind: 'exec' | 'attach', namespace: string, pod: string, container: string): Promise<void> => {
    const q = x.url.searchParams;
    const tty = q.get('tty') === '1';
    const flags: RemoteCommandFlags = { stdin: q.get('input') === '1' || q.get('stdin') === '1', stdout: q.get('output') === '1' || q.get('stdout') === '1', stderr: !tty && (q.get('error') === '1' || q.get('stderr') === '1'), tty };
    if (!flags.stdin && !flags.stdout && !flags.stderr) throw new HttpError(400, 'you must specify at least 1 of stdin, stdout, stderr');
    const command = q.getAll('command');
    if (kind === 'exec' && command.length === 0) throw new HttpError(400, 'you must specify a command');
    const target = await runningContainer(namespace, pod, container);
    let streams: RemoteCommandStreams | undefined;
    if (x.upgrade !== undefined && isWebSocketRequest(x.req)) {
      const accepted = await acceptWebSocket(x, REMOTECOMMAND_WEBSOCKET_PROTOCOLS);
      if (accepted === undefined) return;
      streams = webSocketRemoteCommandStreams(accepted.ws, accepted.protocol, flags);
    } else {
      const { protocol, transport } = upgradeSpdy(x, REMOTECOMMAND_SPDY_PROTOCOLS);
      streams = await acceptSpdyRemoteCommandStreams({
        transport,
        protocol,
        flags,
        streamCreationTimeoutMs: STREAM_CREATION_TIMEOUT_MS,
        onError: (e) => log.debug({ err: e }, `${kind}: SPDY stream error`),
      });
      if (streams === undefined) return;
    }
    const request = { containerId: target.id, stdin: flags.stdin, stdout: flags.stdout, stderr: flags.stderr, tty: flags.tty };
    await serveRemoteCommand({
      streams,
      kind,
      command,
      open: () => (kind === 'exec' ? runtime.runtime.exec({ ...request, cmd: command }) : runtime.runtime.attach(request)),
    });
  };

  const portForward = async (x: Exchange, namespace: string, pod: string): Promise<void> => {
    const sandbox = await sandboxOf(namespace, pod);
    const target: PortForwardTarget = {
      podFullName: podFullName(sandbox),
      podUid: sandbox.metadata.uid,
      connect: (port) => runtime.runtime.portForward(sandbox.id, port),
    };
    if (x.upgrade !== undefined && isWebSocketRequest(x.req)) {
      const requested = headerValues(x.req.headers['sec-websocket-protocol']);
      if (requested.includes(PORTFORWARD_TUNNEL_PROTOCOL)) {
        const accepted = await acceptWebSocket(x, [PORTFORWARD_TUNNEL_PROTOCOL]);
        if (accepted === undefined) return;
        const transport = createWebSocketStream(accepted.ws, { allowHalfOpen: false });
        transport.on('error', () => undefined);
        await serveSpdyPortForward({ ...target, transport, streamCreationTimeoutMs: STREAM_CREATION_TIMEOUT_MS });
        return;
      }
      const ports = parsePortParams(x.url.searchParams.getAll('port'));
      if (ports instanceof Error) throw new HttpError(400, ports.message);
      const accepted = await acceptWebSocket(x, PORTFORWARD_WEBSOCKET_PROTOCOLS);
      if (accepted === undefined) return;
      await serveWebSocketPortForward(accepted.ws, accepted.protocol, ports, target);
      return;
    }
    const { transport } = upgradeSpdy(x, [PORTFORWARD_PROTOCOL]);
    await serveSpdyPortForward({ ...target, transport, streamCreationTimeoutMs: STREAM_CREATION_TIMEOUT_MS, onError: (e) => log.debug({ err: e }, 'port-forward: SPDY stream error') });
  };

  /** The pod's status as this kubelet last wrote it (upstream reads its own status manager); unknown if unreadable. */
  const lastTerminatedInApi = async (namespace: string, pod: string, name: string): Promise<LastTerminated> => {
    try {
      return lastTerminatedOf(await options.client.resource<Pod>(PODS).get(pod, { namespace }), name);
    } catch {
      return undefined;
    }
  };

  /** Why the container waits, as this kubelet last wrote the pod's status; undefined if unreadable or unsaid. */
  const waitingReasonInApi = async (namespace: string, pod: string, name: string): Promise<string | undefined> => {
    try {
      return waitingReasonOf(await options.client.resource<Pod>(PODS).get(pod, { namespace }), name);
    } catch {
      return undefined;
    }
  };

  const containerLogs = async (x: Exchange, namespace: string, pod: string, name: string): Promise<void> => {
    const res = x.res;
    if (res === undefined) throw new HttpError(400, 'container logs cannot be upgraded');
    const q = x.url.searchParams;
    const follow = parseBool(q.get('follow'), 'follow');
    const previous = parseBool(q.get('previous'), 'previous');
    const timestamps = parseBool(q.get('timestamps'), 'timestamps');
    const tail = q.get('tail');
    const tailLines = tail === 'all' ? undefined : parseInteger(q.get('tailLines') ?? tail);
    const sinceSeconds = parseInteger(q.get('sinceSeconds'));
    const limitBytes = parseInteger(q.get('limitBytes'));
    const sinceTimeText = q.get('sinceTime');
    const sinceTime = sinceTimeText === null ? undefined : parseRfc3339Nanos(sinceTimeText);
    if (sinceTimeText !== null && sinceTime === undefined) throw new HttpError(400, '{"message": "Unable to decode query."}');
    const invalid =
      (tailLines !== undefined && tailLines < 0) || (limitBytes !== undefined && limitBytes < 1) || (sinceSeconds !== undefined && sinceSeconds < 1) || (sinceSeconds !== undefined && sinceTime !== undefined);
    if (invalid) throw new HttpError(422, '{"message": "Invalid request."}');
    await sandboxOf(namespace, pod).catch(() => {
      throw new HttpError(404, `pod "${pod}" does not exist`);
    });
    const attempts = await findContainers(runtime, namespace, pod, name);
    let container: Container | undefined;
    if (previous) {
      container = previousAttempt(attempts, await lastTerminatedInApi(namespace, pod, name));
      if (container === undefined) throw new HttpError(400, `previous terminated container "${name}" in pod "${pod}" not found`);
    } else {
      container = attempts[0];
      if (container === undefined || container.state === 'CONTAINER_CREATED') {
        const reason = (await waitingReasonInApi(namespace, pod, name)) ?? 'ContainerCreating';
        throw new HttpError(400, `container "${name}" in pod "${pod}" is waiting to start: ${reason}`);
      }
    }
    const id = container.id;
    const status = await runtime.runtime.containerStatus(id);
    const since = sinceSeconds !== undefined ? BigInt(Date.now() - sinceSeconds * 1000) * 1_000_000n : sinceTime;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    const aborted = new AbortController();
    res.once('close', () => aborted.abort());
    const onStop = (): void => aborted.abort();
    stopping.signal.addEventListener('abort', onStop, { once: true });
    try {
      await readCriLog(status.logPath, res, {
        follow,
        timestamps,
        ...(tailLines !== undefined ? { tailLines } : {}),
        ...(limitBytes !== undefined ? { limitBytes } : {}),
        ...(since !== undefined ? { since } : {}),
        signal: aborted.signal,
        exited: async () => {
          try {
            return (await runtime.runtime.containerStatus(id)).state !== 'CONTAINER_RUNNING';
          } catch {
            return true;
          }
        },
      });
    } finally {
      stopping.signal.removeEventListener('abort', onStop);
    }
    res.end();
  };

  const listPods = async (x: Exchange): Promise<void> => {
    const sandboxes = await runtime.runtime.listPodSandbox();
    const items = sandboxes.map((s) => ({
      metadata: { name: s.labels[POD_NAME_LABEL] ?? s.metadata.name, namespace: s.labels[POD_NAMESPACE_LABEL] ?? s.metadata.namespace, uid: s.labels[POD_UID_LABEL] ?? s.metadata.uid },
      spec: { nodeName: options.nodeName },
      status: { phase: s.state === 'SANDBOX_READY' ? 'Running' : 'Unknown' },
    }));
    x.res?.writeHead(200, { 'Content-Type': 'application/json' });
    x.res?.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items }));
  };

  const route = async (x: Exchange): Promise<void> => {
    const result = await auth.check(x.req);
    if (!result.allowed) throw new HttpError(result.code, result.message);
    const method = (x.req.method ?? 'GET').toUpperCase();
    const parts = x.url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
    const [root, ...rest] = parts;
    const isRead = method === 'GET' || method === 'HEAD';
    const isStream = method === 'GET' || method === 'POST';
    if (root === 'healthz' && rest.length === 0 && isRead) {
      x.res?.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      x.res?.end('ok');
      return;
    }
    if (root === 'metrics' && rest.length === 0 && isRead) {
      const text = await options.metrics();
      x.res?.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
      x.res?.end(text);
      return;
    }
    if (root === 'pods' && rest.length === 0 && isRead) return listPods(x);
    if (root === 'containerLogs' && rest.length === 3 && isRead) return containerLogs(x, rest[0]!, rest[1]!, rest[2]!);
    // /exec/{namespace}/{pod}/{container} and /exec/{namespace}/{pod}/{uid}/{container}
    if ((root === 'exec' || root === 'attach') && (rest.length === 3 || rest.length === 4) && isStream) {
      return remoteCommand(x, root, rest[0]!, rest[1]!, rest[rest.length - 1]!);
    }
    if (root === 'portForward' && (rest.length === 2 || rest.length === 3) && isStream) return portForward(x, rest[0]!, rest[1]!);
    throw new HttpError(404, '404 page not found');
  };

  const handle = (x: Exchange): void => {
    route(x).catch((e: unknown) => {
      if (!(e instanceof HttpError)) log.error({ err: e, path: x.url.pathname }, 'kubelet server: request failed');
      fail(x, e);
    });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => handle({ req, res, url: new URL(req.url ?? '/', 'https://kubelet') }));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (!isUpgradeRequest(req)) {
      writeHttpError(socket, 400, 'bad upgrade request');
      return;
    }
    handle({ req, url: new URL(req.url ?? '/', 'https://kubelet'), upgrade: { socket, head } });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ address: options.address, port }, 'kubelet server listening');
  return {
    port,
    close: async () => {
      stopping.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const client of wss.clients) client.terminate();
      for (const socket of openSockets) socket.destroy();
      await closed;
    },
  };
}
