/**
 * OpenID Connect ID tokens (--oidc-* flags), as upstream's OIDC authenticator:
 *
 * - a JWT whose `iss` is not --oidc-issuer-url is another authenticator's;
 * - the issuer's discovery document (`/.well-known/openid-configuration`,
 *   whose `issuer` must be the URL exactly) names the JWKS, fetched over HTTPS
 *   trusting --oidc-ca-file (else the system roots), refreshed when a token's
 *   key id is unknown;
 * - the signature (RS256, or --oidc-signing-algs), `aud` containing
 *   --oidc-client-id and `exp` are checked; anything wrong is a 401;
 * - the user name is the --oidc-username-claim (default `sub`) with
 *   --oidc-username-prefix; for the `email` claim, an `email_verified`
 *   claim that is present must be true; groups come from
 *   --oidc-groups-claim (a string or a list of strings) with
 *   --oidc-groups-prefix.
 *
 * Prefix defaulting is upstream's: with no --oidc-username-prefix, a claim
 * other than `email` gets `<issuer URL>#`; `-` means no prefix.
 */
import { request } from 'node:https';
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify, type FetchImplementation, type JWTPayload } from 'jose';
import { unauthorized } from '../../../machinery/status.js';
import type { UserInfo } from '../../server/context.js';
import type { TokenAuthenticator } from './interface.js';
import { InvalidTokenError } from './service-account-token.js';

export interface OidcOptions {
  /** --oidc-issuer-url: https only. */
  readonly issuerUrl: string;
  /** --oidc-client-id: the audience tokens must have. */
  readonly clientId: string;
  /** --oidc-username-claim (default `sub`). */
  readonly usernameClaim?: string;
  /** --oidc-username-prefix (see the module comment for its default). */
  readonly usernamePrefix?: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix?: string;
  /** --oidc-ca-file's PEM: the CA the issuer's certificate is checked against. */
  readonly caPem?: string;
  /** --oidc-signing-algs (default RS256). */
  readonly signingAlgorithms?: readonly string[];
  /** The current time (tests). */
  readonly now?: () => Date;
}

/** The username prefix upstream's flag defaulting gives. */
export function effectiveUsernamePrefix(options: Pick<OidcOptions, 'issuerUrl' | 'usernameClaim' | 'usernamePrefix'>): string {
  const claim = options.usernameClaim ?? 'sub';
  const prefix = options.usernamePrefix ?? '';
  if (prefix === '-') return '';
  if (prefix === '' && claim !== 'email') return `${options.issuerUrl}#`;
  return prefix;
}

/** Startup checks of the flags, with upstream's messages where it has them. */
export function validateOidcOptions(options: OidcOptions): void {
  let url: URL;
  try {
    url = new URL(options.issuerUrl);
  } catch {
    throw new Error(`--oidc-issuer-url: "${options.issuerUrl}" is not a URL`);
  }
  if (url.protocol !== 'https:') throw new Error(`--oidc-issuer-url: URL scheme must be https, got "${url.protocol.replace(':', '')}"`);
  if (options.clientId === '') throw new Error('--oidc-client-id must be set when --oidc-issuer-url is');
}

/** A fetch over node:https trusting the given CA, for jose and the discovery document. */
export function fetchTrusting(caPem: string | undefined): FetchImplementation {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: init.method, headers: Object.fromEntries(init.headers.entries()), ...(caPem !== undefined ? { ca: caPem } : {}), signal: init.signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: res.headers as Record<string, string> })));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
}

export function newOidcAuthenticator(options: OidcOptions): TokenAuthenticator {
  validateOidcOptions(options);
  const fetcher = fetchTrusting(options.caPem);
  const usernameClaim = options.usernameClaim ?? 'sub';
  const usernamePrefix = effectiveUsernamePrefix(options);
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  // Discovery once; a failure is retried by the next token.
  const jwks = (): Promise<ReturnType<typeof createRemoteJWKSet>> => {
    keys ??= discover(options.issuerUrl, fetcher).then(
      (jwksUri) => createRemoteJWKSet(new URL(jwksUri), { [customFetch]: fetcher }),
      (e: unknown) => {
        keys = undefined;
        throw e;
      },
    );
    return keys;
  };
  return {
    async authenticateToken(token: string) {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return undefined;
      }
      if (unverified.iss !== options.issuerUrl) return undefined;
      try {
        const { payload } = await jwtVerify(token, await jwks(), {
          issuer: options.issuerUrl,
          audience: options.clientId,
          algorithms: [...(options.signingAlgorithms ?? ['RS256'])],
          requiredClaims: ['exp'],
          ...(options.now !== undefined ? { currentDate: options.now() } : {}),
        });
        return { user: userOf(payload, { usernameClaim, usernamePrefix, ...(options.groupsClaim !== undefined ? { groupsClaim: options.groupsClaim } : {}), groupsPrefix: options.groupsPrefix ?? '' }) };
      } catch (e: unknown) {
        throw Object.assign(unauthorized(), { cause: e instanceof InvalidTokenError ? e : new InvalidTokenError(`oidc: ${e instanceof Error ? e.message : String(e)}`) });
      }
    },
  };
}

async function discover(issuerUrl: string, fetcher: FetchImplementation): Promise<string> {
  const url = `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetcher(url, { method: 'GET', headers: new Headers({ accept: 'application/json' }), redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new InvalidTokenError(`oidc: fetching ${url}: HTTP ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuerUrl) {
    throw new InvalidTokenError(`oidc: issuer did not match the issuer returned by provider, expected "${issuerUrl}" got "${String(doc.issuer)}"`);
  }
  if (typeof doc.jwks_uri !== 'string') throw new InvalidTokenError('oidc: the discovery document has no jwks_uri');
  return doc.jwks_uri;
}

interface ClaimMapping {
  readonly usernameClaim: string;
  readonly usernamePrefix: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix: string;
}

function userOf(payload: JWTPayload, m: ClaimMapping): UserInfo {
  const name = payload[m.usernameClaim];
  if (name === undefined) throw new InvalidTokenError(`oidc: parse username claims "${m.usernameClaim}": claim not present`);
  if (typeof name !== 'string') throw new InvalidTokenError(`oidc: parse username claims "${m.usernameClaim}": not a string`);
  if (m.usernameClaim === 'email' && 'email_verified' in payload) {
    const verified = payload.email_verified;
    if (typeof verified !== 'boolean') throw new InvalidTokenError(`oidc: parse 'email_verified' claim: not a boolean`);
    if (!verified) throw new InvalidTokenError('oidc: email not verified');
  }
  let groups: string[] = [];
  if (m.groupsClaim !== undefined && m.groupsClaim !== '' && payload[m.groupsClaim] !== undefined) {
    const value = payload[m.groupsClaim];
    if (typeof value === 'string') groups = [value];
    else if (Array.isArray(value) && value.every((g) => typeof g === 'string')) groups = value as string[];
    else throw new InvalidTokenError(`oidc: parse groups claim "${m.groupsClaim}": not a string or a list of strings`);
  }
  return { name: `${m.usernamePrefix}${name}`, groups: groups.map((g) => `${m.groupsPrefix}${g}`) };
}
