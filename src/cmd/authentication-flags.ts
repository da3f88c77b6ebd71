/**
 * The API server's authentication flags, with upstream's names and defaults:
 * --anonymous-auth, --token-auth-file, --service-account-issuer,
 * --service-account-key-file, --service-account-signing-key-file,
 * --api-audiences, --enable-bootstrap-token-auth and --oidc-*.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { AuthenticationConfig } from '../apiserver/auth/authenticators/build.js';

export interface AuthenticationFlags {
  anonymousAuth: boolean;
  tokenAuthFile?: string;
  serviceAccountIssuer: string[];
  serviceAccountKeyFile: string[];
  serviceAccountSigningKeyFile?: string;
  apiAudiences: string[];
  enableBootstrapTokenAuth: boolean;
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcUsernameClaim: string;
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  oidcCaFile?: string;
  oidcSigningAlgs: string[];
}

export function parseBool(value: string | boolean): boolean {
  if (value === true || value === 'true' || value === '1' || value === 't' || value === 'T' || value === 'TRUE' || value === 'True') return true;
  if (value === 'false' || value === '0' || value === 'f' || value === 'F' || value === 'FALSE' || value === 'False') return false;
  throw new InvalidArgumentError(`invalid boolean "${String(value)}"`);
}

const repeatable = (value: string, previous: string[]): string[] => [...previous, value];
const commaList = (value: string, previous: string[]): string[] => [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];

export function addAuthenticationFlags(command: Command): Command {
  return command
    .addOption(new Option('--anonymous-auth [bool]', 'let requests without credentials in as system:anonymous (what they may do is the authorizer\'s decision)').default(true).argParser(parseBool))
    .addOption(new Option('--token-auth-file <path>', 'static bearer tokens, CSV: token,user,uid,"group1,group2"'))
    .addOption(new Option('--service-account-issuer <url>', 'issuer of service-account tokens (repeatable: the first issues, all are accepted)').default([] as string[], 'https://kubernetes.default.svc.cluster.local').argParser(repeatable))
    .addOption(new Option('--service-account-key-file <path>', 'PEM keys that verify service-account tokens (repeatable; default: the signing key\'s)').default([] as string[], 'none').argParser(repeatable))
    .addOption(new Option('--service-account-signing-key-file <path>', 'private key that signs service-account tokens (default: <data-dir>/pki/sa.key, made if missing)'))
    .addOption(new Option('--api-audiences <list>', 'audiences of the API (comma-separated; default: the service-account issuers)').default([] as string[], 'the issuers').argParser(commaList))
    .addOption(new Option('--enable-bootstrap-token-auth [bool]', 'accept bootstrap tokens (Secrets of type bootstrap.kubernetes.io/token in kube-system) for TLS bootstrap').default(false).argParser(parseBool))
    .addOption(new Option('--oidc-issuer-url <url>', 'OpenID Connect issuer (https) whose ID tokens are accepted'))
    .addOption(new Option('--oidc-client-id <id>', 'the audience OIDC ID tokens must have'))
    .addOption(new Option('--oidc-username-claim <claim>', 'the claim that names the user').default('sub'))
    .addOption(new Option('--oidc-username-prefix <prefix>', 'prefix of OIDC user names (default: "<issuer>#" unless the claim is email; "-" for none)'))
    .addOption(new Option('--oidc-groups-claim <claim>', 'the claim that lists the user\'s groups'))
    .addOption(new Option('--oidc-groups-prefix <prefix>', 'prefix of OIDC group names'))
    .addOption(new Option('--oidc-ca-file <path>', 'CA of the OIDC issuer\'s serving certificate (default: the system roots)'))
    .addOption(new Option('--oidc-signing-algs <list>', 'accepted signing algorithms (comma-separated)').default([] as string[], 'RS256').argParser(commaList));
}

export function authenticationConfigFromFlags(flags: AuthenticationFlags): AuthenticationConfig {
  if ((flags.oidcIssuerUrl === undefined) !== (flags.oidcClientId === undefined)) {
    throw new Error('--oidc-issuer-url and --oidc-client-id must be given together');
  }
  return {
    anonymous: flags.anonymousAuth,
    ...(flags.tokenAuthFile !== undefined ? { tokenAuthFile: flags.tokenAuthFile } : {}),
    serviceAccountIssuers: flags.serviceAccountIssuer,
    serviceAccountKeyFiles: flags.serviceAccountKeyFile,
    ...(flags.serviceAccountSigningKeyFile !== undefined ? { serviceAccountSigningKeyFile: flags.serviceAccountSigningKeyFile } : {}),
    apiAudiences: flags.apiAudiences,
    bootstrapTokenAuth: flags.enableBootstrapTokenAuth,
    ...(flags.oidcIssuerUrl !== undefined && flags.oidcClientId !== undefined
      ? {
          oidc: {
            issuerUrl: flags.oidcIssuerUrl,
            clientId: flags.oidcClientId,
            usernameClaim: flags.oidcUsernameClaim,
            ...(flags.oidcUsernamePrefix !== undefined ? { usernamePrefix: flags.oidcUsernamePrefix } : {}),
            ...(flags.oidcGroupsClaim !== undefined ? { groupsClaim: flags.oidcGroupsClaim } : {}),
            ...(flags.oidcGroupsPrefix !== undefined ? { groupsPrefix: flags.oidcGroupsPrefix } : {}),
            ...(flags.oidcCaFile !== undefined ? { caFile: flags.oidcCaFile } : {}),
            ...(flags.oidcSigningAlgs.length > 0 ? { signingAlgorithms: flags.oidcSigningAlgs } : {}),
          },
        }
      : {}),
  };
}
