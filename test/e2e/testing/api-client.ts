/**
 * Raw HTTPS requests to the API server with the admin client certificate from
 * a data directory's PKI: for tests of exact status codes, headers and bodies.
 */
import { readFileSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { join } from 'node:path';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as it came, for bodies that are not text (protobuf). */
  readonly body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

export class ApiClient {
  protected readonly session: ClientHttp2Session;

  constructor(url: string, pkiDir: string, options: { anonymous?: boolean } = {}) {
    const ca = readFileSync(join(pkiDir, 'ca.crt'));
    this.session = connect(
      url,
      options.anonymous === true ? { ca } : { ca, cert: readFileSync(join(pkiDir, 'admin.crt')), key: readFileSync(join(pkiDir, 'admin.key')) },
    );
    this.session.on('error', () => {});
  }

  request(method: string, path: string, options: { body?: string | Buffer; headers?: OutgoingHttpHeaders } = {}): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const stream = this.session.request(
        { [constants.HTTP2_HEADER_METHOD]: method, [constants.HTTP2_HEADER_PATH]: path, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
        { endStream: options.body === undefined },
      );
      let status = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[constants.HTTP2_HEADER_STATUS]);
        headers = h as Record<string, string | string[] | undefined>;
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        resolve({ status, headers, text, body, json: <T>() => JSON.parse(text) as T });
      });
      stream.on('error', reject);
      if (options.body !== undefined) stream.end(options.body);
    });
  }

  /**
   * Open a watch; resolves once the response headers arrive, with the lines
   * received so far (growing) and a promise of how the stream ended.
   */
  watch(path: string): Promise<{ status: number; lines: string[]; ended: Promise<'end' | 'error'> }> {
    return new Promise((resolve, reject) => {
      const stream = this.session.request({ [constants.HTTP2_HEADER_METHOD]: 'GET', [constants.HTTP2_HEADER_PATH]: path });
      const lines: string[] = [];
      let buffered = '';
      const ended = new Promise<'end' | 'error'>((done) => {
        stream.on('end', () => done('end'));
        stream.on('error', () => done('error'));
      });
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          lines.push(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
        }
      });
      stream.on('response', (h) => resolve({ status: Number(h[constants.HTTP2_HEADER_STATUS]), lines, ended }));
      stream.on('error', reject);
    });
  }

  close(): void {
    this.session.close();
  }
}

/** The https://host:port of a kubeconfig's cluster. */
export function serverUrlOf(kubeconfig: string): string {
  const match = /server:\s*(\S+)/.exec(readFileSync(kubeconfig, 'utf8'));
  if (match === null) throw new Error(`no server in ${kubeconfig}`);
  return match[1]!;
}
