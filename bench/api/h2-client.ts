/**
 * A minimal HTTP/2 client for the benchmarks: N sessions to the API server
 * with the admin client certificate, requests spread round-robin over them.
 */
import { readFileSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { join } from 'node:path';

export interface H2Response {
  status: number;
  body: string;
}

/** PEM files of the cluster CA and of the client certificate to present. */
export interface H2Credentials {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** The admin credentials of a `k8ts` PKI directory. */
export const adminCredentials = (pkiDir: string): H2Credentials => ({
  caFile: join(pkiDir, 'ca.crt'),
  certFile: join(pkiDir, 'admin.crt'),
  keyFile: join(pkiDir, 'admin.key'),
});

export class H2Client {
  private readonly sessions: ClientHttp2Session[];
  private next = 0;

  /** `credentials`: a PKI directory (its admin certificate) or explicit files. */
  constructor(url: string, credentials: string | H2Credentials, connections: number) {
    const files = typeof credentials === 'string' ? adminCredentials(credentials) : credentials;
    const ca = readFileSync(files.caFile);
    const cert = readFileSync(files.certFile);
    const key = readFileSync(files.keyFile);
    this.sessions = Array.from({ length: connections }, () => {
      const s = connect(url, { ca, cert, key, settings: { maxConcurrentStreams: 2000 } });
      s.on('error', () => {});
      return s;
    });
  }

  private session(): ClientHttp2Session {
    const s = this.sessions[this.next % this.sessions.length]!;
    this.next++;
    return s;
  }

  request(method: string, path: string, body?: string): Promise<H2Response> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { [constants.HTTP2_HEADER_METHOD]: method, [constants.HTTP2_HEADER_PATH]: path, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const stream = this.session().request(headers, { endStream: body === undefined });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (status = Number(h[constants.HTTP2_HEADER_STATUS])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', reject);
      if (body !== undefined) stream.end(body);
    });
  }

  /** Open a watch; `onLine` gets each JSON line as it arrives. Returns a function that closes it. */
  watch(path: string, onLine: (line: string) => void): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const stream = this.session().request({ [constants.HTTP2_HEADER_METHOD]: 'GET', [constants.HTTP2_HEADER_PATH]: path, accept: 'application/json' });
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('response', (h) => {
        const status = Number(h[constants.HTTP2_HEADER_STATUS]);
        if (status !== 200) reject(new Error(`watch ${path}: HTTP ${status}`));
        else resolve(() => stream.close());
      });
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          onLine(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
        }
      });
      stream.on('error', (e) => reject(e));
    });
  }

  close(): void {
    for (const s of this.sessions) s.close();
  }
}
