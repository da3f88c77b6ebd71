/**
 * The API server's authentication from its flags, as upstream's
 * BuiltInAuthenticationOptions builds it: client certificates; then the
 * static token file, service-account tokens, bootstrap tokens and OIDC, in
 * that order; then anonymous. Everything a flag names is read at start, so a bad file stops
 * the server with a message saying which file and why.
 */
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../../machinery/meta.js';
import type { TokenRequestOptions } from '../../registry/core/serviceaccount/token.js';
import { audienceAgnostic } from './audience-agnostic.js';
import { newBootstrapTokenAuthenticator } from './bootstrap-token.js';
import type { TokenAuthenticator } from './interface.js';
import { newOidcAuthenticator, type OidcOptions } from './oidc.js';
import { newRequestAuthenticator, type RequestAuthenticator } from './request-authenticator.js';
import { readSigningKey, readVerifyingKeys, type VerifyingKey } from './service-account-keys.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, newServiceAccountTokenAuthenticator, ServiceAccountTokenIssuer } from './service-account-token.js';
import { loadTokenFile, type TokenFileWarning } from './token-file.js';

export interface AuthenticationConfig {
  /** --anonymous-auth (default true). */
  readonly anonymous?: boolean;
  /** --token-auth-file. */
  readonly tokenAuthFile?: string;
  /** --service-account-issuer (repeatable; the first issues). Default https://kubernetes.default.svc.cluster.local. */
  readonly serviceAccountIssuers?: readonly string[];
  /** --service-account-key-file (repeatable): keys that verify tokens. Default: the signing key's public half. */
  readonly serviceAccountKeyFiles?: readonly string[];
  /** --service-account-signing-key-file: without it, no TokenRequest and no service-account tokens. */
  readonly serviceAccountSigningKeyFile?: string;
  /** --api-audiences (default: the issuers). */
  readonly apiAudiences?: readonly string[];
  /** --oidc-* (issuer URL and client id set). */
  readonly oidc?: Omit<OidcOptions, 'caPem'> & { readonly caFile?: string };
  /** --enable-bootstrap-token-auth (default false): bootstrap tokens from Secrets in kube-system. */
  readonly bootstrapTokenAuth?: boolean;
  /** Anonymous requests reach only health and version (the rule while no authorizer decides; default true). */
  readonly anonymousPublicPathsOnly?: boolean;
}

/** How the authenticator reads objects (Registry.getCached). */
export interface ObjectReader {
  getCached(group: string, version: string, resource: string, namespace: string, name: string): Promise<KubeObject | undefined>;
}

export interface PreparedAuthentication {
  /** For serviceaccounts/token, when there is a signing key. */
  readonly serviceAccountTokens?: TokenRequestOptions;
  readonly apiAudiences: readonly string[];
  /** The request authenticator, once the registry it reads objects through exists. */
  build(objects: ObjectReader): RequestAuthenticator;
}

export function prepareAuthentication(config: AuthenticationConfig = {}, onWarning: (message: string) => void = () => {}): PreparedAuthentication {
  const issuers = config.serviceAccountIssuers !== undefined && config.serviceAccountIssuers.length > 0 ? config.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = config.apiAudiences !== undefined && config.apiAudiences.length > 0 ? config.apiAudiences : issuers;
  const tokenFile = config.tokenAuthFile !== undefined ? loadTokenFile(config.tokenAuthFile, (w: TokenFileWarning) => onWarning(w.message)) : undefined;
  const signingKey = config.serviceAccountSigningKeyFile !== undefined ? readSigningKey(config.serviceAccountSigningKeyFile) : undefined;
  let verifyingKeys: VerifyingKey[] = readVerifyingKeys(config.serviceAccountKeyFiles ?? []);
  if (verifyingKeys.length === 0 && config.serviceAccountSigningKeyFile !== undefined) verifyingKeys = readVerifyingKeys([config.serviceAccountSigningKeyFile]);
  let oidc: TokenAuthenticator | undefined;
  if (config.oidc !== undefined) {
    const { caFile, ...rest } = config.oidc;
    let caPem: string | undefined;
    if (caFile !== undefined) {
      try {
        caPem = readFileSync(caFile, 'utf8');
      } catch (e: unknown) {
        throw new Error(`reading ${caFile} (--oidc-ca-file) failed: ${(e as Error).message}`, { cause: e });
      }
    }
    oidc = newOidcAuthenticator({ ...rest, ...(caPem !== undefined ? { caPem } : {}) });
  }
  const serviceAccountTokens = signingKey !== undefined ? { issuer: new ServiceAccountTokenIssuer(issuers[0]!, signingKey), apiAudiences } : undefined;
  return {
    ...(serviceAccountTokens !== undefined ? { serviceAccountTokens } : {}),
    apiAudiences,
    build(objects) {
      const tokenAuthenticators: TokenAuthenticator[] = [];
      if (tokenFile !== undefined) tokenAuthenticators.push(audienceAgnostic(apiAudiences, tokenFile));
      if (verifyingKeys.length > 0) {
        tokenAuthenticators.push(
          newServiceAccountTokenAuthenticator({
            issuers,
            keys: verifyingKeys,
            apiAudiences,
            objects: {
              serviceAccount: (ns, name) => objects.getCached('', 'v1', 'serviceaccounts', ns, name),
              pod: (ns, name) => objects.getCached('', 'v1', 'pods', ns, name),
              secret: (ns, name) => objects.getCached('', 'v1', 'secrets', ns, name),
              node: (name) => objects.getCached('', 'v1', 'nodes', '', name),
            },
          }),
        );
      }
      if (config.bootstrapTokenAuth === true) {
        const bootstrapTokens = newBootstrapTokenAuthenticator({ secret: (ns, name) => objects.getCached('', 'v1', 'secrets', ns, name) });
        tokenAuthenticators.push(audienceAgnostic(apiAudiences, bootstrapTokens));
      }
      if (oidc !== undefined) tokenAuthenticators.push(audienceAgnostic(apiAudiences, oidc));
      return newRequestAuthenticator({ tokenAuthenticators, ...(config.anonymous !== undefined ? { anonymous: config.anonymous } : {}) });
    },
  };
}
