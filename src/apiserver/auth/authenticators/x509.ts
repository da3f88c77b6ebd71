/**
 * Client certificates signed by the cluster CA, as upstream's x509
 * authenticator: the subject's CN is the user name, each O a group. The TLS
 * listener asks for a certificate without requiring one and verifies it
 * against --client-ca-file; this reads the verdict.
 *
 * - no certificate: no opinion (another credential, or anonymous);
 * - a certificate the CA did not sign, or an expired one: 401;
 * - a verified certificate without a CN: no opinion, as upstream.
 *
 * A connection's certificate never changes, so the answer is kept per
 * connection (per HTTP/2 session, or per HTTP/1.1 socket), not read per request.
 */
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../../machinery/status.js';
import type { RequestContext, UserInfo } from '../../server/context.js';
import type { AuthenticationResult, Authenticator } from './interface.js';

/** The verdict on a connection's certificate: a user, nothing presented/usable (null), or a rejected certificate. */
type Verdict = AuthenticationResult | null | { readonly rejected: string };

/** The peer-certificate facts this authenticator reads from a TLS socket. */
export interface PeerCertificateSource {
  readonly authorized: boolean;
  readonly authorizationError?: Error | string | null;
  getPeerCertificate(): PeerCertificate | null;
}

interface PeerCertificate {
  readonly subject?: Record<string, string | string[] | undefined>;
  /** `AB:CD:…`, the SHA-256 of the DER certificate. */
  readonly fingerprint256?: string;
  /** Extended key usage OIDs, when the certificate has the extension. */
  readonly ext_key_usage?: readonly string[];
}

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
/** Upstream's extra key naming the credential (x509: `X509SHA256=<hex of the certificate's SHA-256>`). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

export function newX509Authenticator(): Authenticator {
  const verdicts = new WeakMap<object, Verdict>();
  return {
    authenticate(ctx: RequestContext) {
      const connection = connectionOf(ctx);
      let verdict = verdicts.get(connection);
      if (verdict === undefined) {
        verdict = readCertificate(ctx.req.socket as unknown as Partial<PeerCertificateSource>);
        verdicts.set(connection, verdict);
      }
      if (verdict === null) return undefined;
      if ('rejected' in verdict) throw unauthorized();
      return verdict;
    },
  };
}

function connectionOf(ctx: RequestContext): object {
  const stream = (ctx.req as { stream?: { session?: object } }).stream;
  return stream?.session ?? ctx.req.socket;
}

/** The user a socket's client certificate names (exported for tests). */
export function readCertificate(socket: Partial<PeerCertificateSource> | undefined): Verdict {
  if (socket === undefined || typeof socket.getPeerCertificate !== 'function') return null;
  const cert = (socket as TLSSocket).getPeerCertificate() as PeerCertificate | null;
  if (cert === null || Object.keys(cert).length === 0) return null;
  if (socket.authorized !== true) return { rejected: String(socket.authorizationError ?? 'certificate not verified') };
  // Go's verifier: a certificate with extended key usages must allow client authentication.
  if (cert.ext_key_usage !== undefined && !cert.ext_key_usage.includes(CLIENT_AUTH_OID)) return { rejected: 'certificate not for client authentication' };
  const name = first(cert.subject?.CN);
  if (name === undefined || name === '') return null;
  const o = cert.subject?.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  const fingerprint = (cert.fingerprint256 ?? '').replaceAll(':', '').toLowerCase();
  const user: UserInfo = { name, groups, ...(fingerprint !== '' ? { extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] } } : {}) };
  return { user };
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
