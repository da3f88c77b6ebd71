/**
 * Bound service-account tokens, as upstream issues and checks them: JWTs
 * signed with the cluster's service-account key.
 *
 * Claims: iss (--service-account-issuer), sub system:serviceaccount:NS:NAME,
 * aud, exp, iat, nbf, jti, and `kubernetes.io` with the namespace, the
 * service account's name and uid, and the object the token is bound to (pod
 * or secret; a pod's node when it has one).
 *
 * A token is accepted when it was issued by one of our issuers (else no
 * opinion: it may be another issuer's), its signature verifies with one of
 * the service-account keys, it has not expired (a minute of clock skew, as
 * upstream's leeway), one of its audiences is wanted, and the service account
 * — and the pod or secret it is bound to — still exists with the same uid.
 * Anything else is a 401.
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { KubeObject } from '../../../machinery/meta.js';
import { unauthorized } from '../../../machinery/status.js';
import type { UserInfo } from '../../server/context.js';
import type { AuthenticationResult, TokenAuthenticator, TokenOptions } from './interface.js';
import type { SigningKey, VerifyingKey } from './service-account-keys.js';
import { CREDENTIAL_ID_KEY } from './x509.js';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

/** Clock skew allowed on exp and nbf (go-jose's default leeway, which upstream uses). */
const LEEWAY_SECONDS = 60;

interface NameUid {
  name: string;
  uid: string;
}

/** The `kubernetes.io` private claim. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: NameUid;
  pod?: NameUid;
  secret?: NameUid;
  node?: NameUid;
}

export interface TokenBinding {
  readonly pod?: KubeObject;
  readonly secret?: KubeObject;
  /** The bound pod's node, when it has one (name only when the Node object is missing). */
  readonly node?: { name: string; uid?: string };
}

export interface IssueTokenOptions {
  readonly serviceAccount: KubeObject;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly binding?: TokenBinding;
  readonly now?: Date;
}

export interface IssuedToken {
  readonly token: string;
  readonly expiration: Date;
}

export const serviceAccountUsername = (namespace: string, name: string): string => `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;

/** Signs bound service-account tokens (the TokenRequest subresource uses it). */
export class ServiceAccountTokenIssuer {
  constructor(
    private readonly issuer: string,
    private readonly key: SigningKey,
  ) {}

  async issue(options: IssueTokenOptions): Promise<IssuedToken> {
    const sa = options.serviceAccount.metadata;
    const namespace = sa.namespace ?? '';
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const exp = now + options.expirationSeconds;
    const claim: KubernetesClaim = { namespace, serviceaccount: { name: sa.name ?? '', uid: sa.uid ?? '' } };
    const b = options.binding;
    if (b?.node !== undefined) claim.node = { name: b.node.name, uid: b.node.uid ?? '' };
    if (b?.pod !== undefined) claim.pod = { name: b.pod.metadata.name ?? '', uid: b.pod.metadata.uid ?? '' };
    if (b?.secret !== undefined) claim.secret = { name: b.secret.metadata.name ?? '', uid: b.secret.metadata.uid ?? '' };
    const token = await new SignJWT({ 'kubernetes.io': claim as unknown as Record<string, unknown> })
      .setProtectedHeader({ alg: this.key.algorithm, kid: this.key.keyId })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(namespace, sa.name ?? ''))
      .setAudience([...options.audiences])
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.key.key);
    return { token, expiration: new Date(exp * 1000) };
  }
}

/** What the authenticator reads to check that a token's objects still exist. */
export interface ServiceAccountObjects {
  serviceAccount(namespace: string, name: string): Promise<KubeObject | undefined>;
  pod(namespace: string, name: string): Promise<KubeObject | undefined>;
  secret(namespace: string, name: string): Promise<KubeObject | undefined>;
  node(name: string): Promise<KubeObject | undefined>;
}

export interface ServiceAccountAuthenticatorOptions {
  /** --service-account-issuer values: the first issues, all are accepted. */
  readonly issuers: readonly string[];
  /** --service-account-key-file keys. */
  readonly keys: readonly VerifyingKey[];
  /** --api-audiences: the audiences a request's token must have one of (default: the issuers). */
  readonly apiAudiences: readonly string[];
  readonly objects: ServiceAccountObjects;
  /** The current time (tests). */
  readonly now?: () => Date;
}

/** Why a token is refused; the 401 itself never says. */
export class InvalidTokenError extends Error {}

export function newServiceAccountTokenAuthenticator(options: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const issuers = new Set(options.issuers);
  return {
    async authenticateToken(token: string, tokenOptions?: TokenOptions): Promise<AuthenticationResult | undefined> {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return undefined; // not a JWT: another authenticator's
      }
      if (typeof unverified.iss !== 'string' || !issuers.has(unverified.iss)) return undefined;
      try {
        return await verify(token, options, tokenOptions?.audiences ?? options.apiAudiences);
      } catch (e: unknown) {
        const why = e instanceof Error ? e.message : String(e);
        throw Object.assign(unauthorized(), { cause: new InvalidTokenError(why) });
      }
    },
  };
}

async function verify(token: string, options: ServiceAccountAuthenticatorOptions, wanted: readonly string[]): Promise<AuthenticationResult> {
  const now = options.now?.() ?? new Date();
  let payload: JWTPayload | undefined;
  let lastError: unknown;
  for (const { key } of options.keys) {
    try {
      ({ payload } = await jwtVerify(token, key, { currentDate: now, clockTolerance: LEEWAY_SECONDS }));
      break;
    } catch (e: unknown) {
      lastError = e;
      // A bad signature may be another key's: try the next. Expiry and the like are final.
      if (!(e instanceof joseErrors.JWSSignatureVerificationFailed) && !(e instanceof joseErrors.JOSENotSupported)) throw e;
    }
  }
  if (payload === undefined) throw new InvalidTokenError(`token could not be verified: ${(lastError as Error | undefined)?.message ?? 'no service-account key'}`);
  if (payload.exp === undefined) throw new InvalidTokenError('token has no expiry');
  const tokenAudiences = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const audiences = wanted.filter((a) => tokenAudiences.includes(a));
  if (audiences.length === 0) throw new InvalidTokenError(`token audiences ${JSON.stringify(tokenAudiences)} is invalid for the target audiences ${JSON.stringify(wanted)}`);
  const claim = payload['kubernetes.io'] as Partial<KubernetesClaim> | undefined;
  const namespace = claim?.namespace;
  const sa = claim?.serviceaccount;
  if (claim === undefined || typeof namespace !== 'string' || namespace === '' || typeof sa?.name !== 'string' || sa.name === '') {
    throw new InvalidTokenError('token has no kubernetes.io claim with a namespace and service account');
  }
  if (payload.sub !== serviceAccountUsername(namespace, sa.name)) throw new InvalidTokenError('token subject does not match its service account');
  await checkAlive('service account', options.objects.serviceAccount(namespace, sa.name), namespace, sa);
  if (claim.pod !== undefined) await checkAlive('pod', options.objects.pod(namespace, claim.pod.name), namespace, claim.pod);
  if (claim.secret !== undefined) await checkAlive('secret', options.objects.secret(namespace, claim.secret.name), namespace, claim.secret);
  // A token bound to a node itself (not a pod's node, named for information) lives as long as the node.
  if (claim.node !== undefined && claim.pod === undefined && claim.secret === undefined) {
    const node = await options.objects.node(claim.node.name);
    if (node === undefined) throw new InvalidTokenError(`node ${claim.node.name} has been deleted`);
    if ((node.metadata.uid ?? '') !== claim.node.uid) throw new InvalidTokenError(`node UID (${node.metadata.uid ?? ''}) does not match claim (${claim.node.uid})`);
  }
  const extra: Record<string, string[]> = {};
  if (claim.pod !== undefined) {
    extra[POD_NAME_KEY] = [claim.pod.name];
    extra[POD_UID_KEY] = [claim.pod.uid];
  }
  if (claim.node !== undefined) {
    extra[NODE_NAME_KEY] = [claim.node.name];
    if (claim.node.uid !== '') extra[NODE_UID_KEY] = [claim.node.uid];
  }
  if (typeof payload.jti === 'string' && payload.jti !== '') extra[CREDENTIAL_ID_KEY] = [`JTI=${payload.jti}`];
  const user: UserInfo = {
    name: serviceAccountUsername(namespace, sa.name),
    uid: sa.uid,
    groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
  return { user, audiences };
}

async function checkAlive(what: string, lookup: Promise<KubeObject | undefined>, namespace: string, ref: NameUid): Promise<void> {
  const object = await lookup;
  if (object === undefined) throw new InvalidTokenError(`${what} ${namespace}/${ref.name} has been deleted`);
  const uid = object.metadata.uid ?? '';
  if (uid !== ref.uid) throw new InvalidTokenError(`${what} UID (${uid}) does not match claim (${ref.uid})`);
}
