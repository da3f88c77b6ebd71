/**
 * Real servers on 127.0.0.1 for the prober's tests: HTTP and HTTPS (a
 * throwaway self-signed certificate, which the probe must not verify), a
 * plain TCP listener, and a gRPC server with the grpc.health.v1 service.
 * Each listens on a free port and closes with `close()`.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { Server, ServerCredentials, status as grpcStatus, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { healthService, type HealthCheckRequest, type HealthCheckResponse, type ServingStatus } from '../grpc-health-proto.js';

x509.cryptoProvider.set(webcrypto);

export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

async function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closer(server: net.Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      (server as http.Server).closeAllConnections?.();
      server.close(() => resolve());
    });
}

export async function startHttpServer(handler: http.RequestListener, host = '127.0.0.1'): Promise<RunningServer> {
  const server = http.createServer(handler);
  const port = await listen(server, host);
  return { port, close: closer(server) };
}

async function selfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '4'),
    name: [{ CN: ['probe-test'] }],
    notBefore: new Date(Date.now() - 3_600_000),
    notAfter: new Date(Date.now() + 86_400_000),
    keys,
    signingAlgorithm: alg,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'probe-test.invalid' }])],
  });
  return { cert: cert.toString('pem') + '\n', key: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** HTTPS with a self-signed certificate for another name: any verifying client would refuse it. */
export async function startHttpsServer(handler: http.RequestListener): Promise<RunningServer> {
  const server = https.createServer(await selfSignedCertificate(), handler);
  const port = await listen(server);
  return { port, close: closer(server) };
}

/** A TCP listener that accepts and closes connections. */
export async function startTcpServer(): Promise<RunningServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.end();
  });
  const port = await listen(server);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A listener whose accept queue is full (a python3 process that listens with
 * backlog 0 and never accepts, plus connections that fill the queue): a new
 * connection to it neither opens nor fails, so a dial times out.
 */
export async function startFullListener(): Promise<RunningServer> {
  const child = spawn('python3', ['-c', 'import socket,sys,time\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(600)'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 4; i++) {
    const s = net.connect({ host: '127.0.0.1', port });
    s.on('error', () => undefined);
    fillers.push(s);
  }
  return {
    port,
    close: async () => {
      for (const s of fillers) s.destroy();
      child.kill('SIGKILL');
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface GrpcHealthServer extends RunningServer {
  /** The status Check answers for `service` ('' is the server as a whole); a service never set is NOT_FOUND, as grpc-go's health server answers. */
  setStatus(service: string, status: ServingStatus): void;
  /** Checks received, with their service names. */
  readonly requests: string[];
}

export async function startGrpcHealthServer(options: { delayMs?: number } = {}): Promise<GrpcHealthServer> {
  const statuses = new Map<string, ServingStatus>();
  const requests: string[] = [];
  const server = new Server();
  server.addService(healthService(), {
    Check(call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: sendUnaryData<HealthCheckResponse>) {
      requests.push(call.request.service);
      const answer = (): void => {
        const status = statuses.get(call.request.service);
        if (status === undefined) callback({ code: grpcStatus.NOT_FOUND, details: 'unknown service' });
        else callback(null, { status });
      };
      if (options.delayMs !== undefined) setTimeout(answer, options.delayMs);
      else answer();
    },
    Watch() {
      // not used by the probe
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return {
    port,
    requests,
    setStatus: (service, status) => statuses.set(service, status),
    close: async () => server.forceShutdown(),
  };
}

/** A gRPC server without the health service (Check is UNIMPLEMENTED). */
export async function startGrpcServerWithoutHealth(): Promise<RunningServer> {
  const server = new Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { port, close: async () => server.forceShutdown() };
}
