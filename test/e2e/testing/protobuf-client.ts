/**
 * Raw protobuf requests to the API server (bytes in, bytes out, watch frames
 * split as they arrive) and a recording proxy that stands between kubectl and
 * the server, so a test can see the exact bodies a real kubectl sends.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { constants } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WatchFrameReader, type DecodedWatchEvent } from '../../../src/api/protobuf/envelope.js';
import { ApiClient } from './api-client.js';

/** Requests whose bodies are bytes (ApiClient's `body`), and protobuf watches. */
export class RawApiClient extends ApiClient {
  /** A protobuf watch: events arrive in `events`; `next(n)` waits until there are n of them. */
  protobufWatch(path: string, accept = 'application/vnd.kubernetes.protobuf'): Promise<ProtobufWatch> {
    return new Promise((resolve, reject) => {
      const stream = this.session.request({ [constants.HTTP2_HEADER_METHOD]: 'GET', [constants.HTTP2_HEADER_PATH]: path, accept });
      const reader = new WatchFrameReader();
      const events: DecodedWatchEvent[] = [];
      const waiters: { count: number; resolve: () => void }[] = [];
      let failure: unknown;
      const wake = (): void => {
        for (const w of [...waiters]) {
          if (events.length >= w.count || failure !== undefined) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      };
      stream.on('data', (chunk: Buffer) => {
        try {
          events.push(...reader.push(chunk));
        } catch (e: unknown) {
          failure = e;
        }
        wake();
      });
      stream.on('response', (h) =>
        resolve({
          status: Number(h[constants.HTTP2_HEADER_STATUS]),
          contentType: String(h['content-type']),
          events,
          next: async (count) => {
            if (events.length < count && failure === undefined) await new Promise<void>((done) => waiters.push({ count, resolve: done }));
            if (failure !== undefined) throw failure;
            return events.slice(0, count);
          },
          close: () => stream.close(),
        }),
      );
      stream.on('error', reject);
    });
  }
}

export interface ProtobufWatch {
  readonly status: number;
  readonly contentType: string;
  readonly events: readonly DecodedWatchEvent[];
  next(count: number): Promise<DecodedWatchEvent[]>;
  close(): void;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly accept: string;
  readonly body: Buffer;
  /** Filled in when the server's answer arrives. */
  response?: { status: number; contentType: string };
}

/**
 * A plain-HTTP proxy on loopback that forwards every request to the server
 * with the admin client certificate and records write bodies. kubectl talks
 * to it through `kubeconfig`.
 */
export interface RecordingProxy {
  readonly kubeconfig: string;
  readonly requests: RecordedRequest[];
  stop(): Promise<void>;
}

export async function startRecordingProxy(serverUrl: string, pkiDir: string, workDir: string): Promise<RecordingProxy> {
  const target = new URL(serverUrl);
  const tls = { ca: readFileSync(join(pkiDir, 'ca.crt')), cert: readFileSync(join(pkiDir, 'admin.crt')), key: readFileSync(join(pkiDir, 'admin.key')) };
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let recorded: RecordedRequest | undefined;
      if (req.method === 'POST' || req.method === 'PUT' || req.method === 'DELETE') {
        recorded = { method: req.method, path: req.url ?? '', contentType: req.headers['content-type'] ?? '', accept: req.headers.accept ?? '', body };
        requests.push(recorded);
      }
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
      const upstream = httpsRequest({ ...tls, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
        if (recorded !== undefined) recorded.response = { status: answer.statusCode ?? 0, contentType: answer.headers['content-type'] ?? '' };
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = join(workDir, 'recording-proxy.kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: proxy`,
      `  cluster: {server: "http://127.0.0.1:${port}"}`,
      'users:',
      '- name: nobody',
      '  user: {}',
      'contexts:',
      '- name: proxy',
      '  context: {cluster: proxy, user: nobody}',
      'current-context: proxy',
      '',
    ].join('\n'),
  );
  return {
    kubeconfig,
    requests,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
