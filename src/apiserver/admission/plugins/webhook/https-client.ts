/**
 * POST a JSON body to an HTTPS endpoint that trusts `caBundle` (or the
 * system's roots when there is none), with a deadline, answering the parsed
 * JSON response. Failures are Errors worded as Go's net/http client words
 * them (`Post "URL": context deadline exceeded`), because upstream's
 * messages quote them. Shared by webhook admission and webhook authorization.
 */
import { Agent, request } from 'node:https';

export interface PostOptions {
  readonly url: URL;
  /** PEM certificates to trust; undefined: the system's roots. */
  readonly ca?: string | undefined;
  /** TLS server name, when the URL's host is an address (a service reference resolved to its cluster IP). */
  readonly servername?: string | undefined;
  /** PEM client certificate and key (webhook authorization's kubeconfig may give one). */
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly bearerToken?: string | undefined;
  readonly timeoutMs: number;
  readonly body: string;
  /** Largest response accepted. */
  readonly maxResponseBytes?: number;
}

export interface PostResult {
  readonly statusCode: number;
  readonly body: unknown;
}

/** Keep-alive agents per trust configuration, so that a request does not pay a handshake. */
export class HttpsPoster {
  private readonly agents = new Map<string, Agent>();

  async post(options: PostOptions): Promise<PostResult> {
    const where = `Post "${options.url.href}"`;
    const agent = this.agent(options);
    const limit = options.maxResponseBytes ?? 16 * 1024 * 1024;
    return new Promise<PostResult>((resolve, reject) => {
      let settled = false;
      const fail = (message: string, cause?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(new Error(`${where}: ${message}`, cause === undefined ? undefined : { cause }));
      };
      const req = request(options.url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'content-length': Buffer.byteLength(options.body),
          ...(options.bearerToken !== undefined ? { authorization: `Bearer ${options.bearerToken}` } : {}),
        },
        ...(options.servername !== undefined ? { servername: options.servername } : {}),
      });
      const timer = setTimeout(() => fail('context deadline exceeded'), options.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => fail(goNetError(e, options.url), e));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) fail(`response body larger than ${limit} bytes`);
          else chunks.push(chunk);
        });
        res.on('error', (e: NodeJS.ErrnoException) => fail(goNetError(e, options.url), e));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ statusCode: res.statusCode ?? 0, body });
        });
      });
      req.end(options.body);
    });
  }

  private agent(options: PostOptions): Agent {
    const key = JSON.stringify([options.ca ?? '', options.servername ?? '', options.cert ?? '', options.key ?? '']);
    let agent = this.agents.get(key);
    if (agent === undefined) {
      agent = new Agent({
        keepAlive: true,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.cert !== undefined ? { cert: options.cert } : {}),
        ...(options.key !== undefined ? { key: options.key } : {}),
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Close idle connections (the plugin's or authorizer's stop). */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** Node's socket errors in the words of Go's net package, as upstream messages show them. */
export function goNetError(e: NodeJS.ErrnoException, url: URL): string {
  const address = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port !== '' ? url.port : '443'}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'ECONNRESET':
      return e.message === 'socket hang up' ? 'EOF' : `read tcp ${address}: read: connection reset by peer`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_SIGNATURE_FAILURE':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${url.hostname}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return e.message;
  }
}
