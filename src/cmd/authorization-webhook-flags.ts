/**
 * The API server's webhook-authorization flags, with upstream's names and
 * defaults: --authorization-webhook-config-file (kubeconfig format),
 * --authorization-webhook-version (v1beta1 by default, as kube-apiserver),
 * --authorization-webhook-cache-authorized-ttl (5m) and
 * --authorization-webhook-cache-unauthorized-ttl (30s), durations written
 * as Go writes them. Checked against --authorization-mode as upstream's
 * BuiltInAuthorizationOptions.Validate does.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { AuthorizationMode } from '../apiserver/auth/authorizers/modes.js';
import { DEFAULT_WEBHOOK_VERSION, type WebhookAuthorizerFlags } from '../apiserver/auth/authorizers/webhook/webhook-authorizer.js';
import { durationFlag } from './go-duration.js';

export interface AuthorizationWebhookFlags {
  authorizationWebhookConfigFile?: string;
  authorizationWebhookVersion: string;
  /** Milliseconds. */
  authorizationWebhookCacheAuthorizedTtl: number;
  /** Milliseconds. */
  authorizationWebhookCacheUnauthorizedTtl: number;
}

const duration = (text: string): number => {
  try {
    return durationFlag(text);
  } catch (e: unknown) {
    throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
  }
};

export function addAuthorizationWebhookFlags(command: Command): Command {
  return command
    .addOption(new Option('--authorization-webhook-config-file <path>', 'file with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook: the API server asks the remote service whether a request may proceed'))
    .addOption(new Option('--authorization-webhook-version <version>', 'the API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook (v1 or v1beta1)').default(DEFAULT_WEBHOOK_VERSION))
    .addOption(new Option('--authorization-webhook-cache-authorized-ttl <duration>', "the duration to cache 'authorized' responses from the webhook authorizer").default(300_000, '5m0s').argParser(duration))
    .addOption(new Option('--authorization-webhook-cache-unauthorized-ttl <duration>', "the duration to cache 'unauthorized' responses from the webhook authorizer").default(30_000, '30s').argParser(duration));
}

/** The webhook authorizer's settings when Webhook is among the modes; upstream's errors for a missing or unused config file. */
export function authorizationWebhookFromFlags(flags: AuthorizationWebhookFlags, modes: readonly AuthorizationMode[]): WebhookAuthorizerFlags | undefined {
  const file = flags.authorizationWebhookConfigFile ?? '';
  const webhookMode = modes.includes('Webhook');
  if (webhookMode && file === '') throw new Error("authorization-mode Webhook's authorization config file not passed");
  if (!webhookMode && file !== '') throw new Error('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (!webhookMode) return undefined;
  return {
    configFile: file,
    version: flags.authorizationWebhookVersion,
    cacheAuthorizedTTLMs: flags.authorizationWebhookCacheAuthorizedTtl,
    cacheUnauthorizedTTLMs: flags.authorizationWebhookCacheUnauthorizedTtl,
  };
}
