/** A request context with just what the authenticators read: headers and a TLS socket. */
import type { RequestContext } from '../../../server/context.js';
import { parseRequestInfo } from '../../../server/request-info.js';
import type { PeerCertificateSource } from '../x509.js';

export interface FakeRequestOptions {
  readonly path?: string;
  readonly headers?: Record<string, string>;
  /** The TLS socket's view of the client certificate (default: none presented). */
  readonly socket?: Partial<PeerCertificateSource>;
}

export function fakeRequest(options: FakeRequestOptions = {}): RequestContext {
  const u = new URL(options.path ?? '/api/v1/namespaces', 'https://apiserver');
  const socket = options.socket ?? { authorized: false, getPeerCertificate: () => ({}) };
  return {
    req: { method: 'GET', headers: { ...(options.headers ?? {}) }, socket },
    res: {},
    path: u.pathname,
    query: u.searchParams,
    info: parseRequestInfo('GET', u.pathname, u.searchParams),
    user: undefined,
    start: process.hrtime.bigint(),
    warnings: [],
  } as unknown as RequestContext;
}

/** A socket whose client certificate the CA verified (or not, with `authorized: false`). */
export function certificateSocket(subject: Record<string, string | string[]>, options: { authorized?: boolean; extKeyUsage?: string[] } = {}): PeerCertificateSource {
  return {
    authorized: options.authorized ?? true,
    authorizationError: options.authorized === false ? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' : null,
    getPeerCertificate: () => ({
      subject,
      fingerprint256: 'AB:CD:EF',
      ...(options.extKeyUsage !== undefined ? { ext_key_usage: options.extKeyUsage } : {}),
    }),
  };
}
