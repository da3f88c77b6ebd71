import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addAuthorizationWebhookFlags, authorizationWebhookFromFlags, type AuthorizationWebhookFlags } from './authorization-webhook-flags.js';

function parse(args: string[]): AuthorizationWebhookFlags {
  const command = addAuthorizationWebhookFlags(new Command('apiserver')).exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  command.parse(args, { from: 'user' });
  return command.opts<AuthorizationWebhookFlags>();
}

describe('authorization webhook flags', () => {
  it("default to upstream kube-apiserver's values", () => {
    const flags = parse([]);
    assert.equal(flags.authorizationWebhookConfigFile, undefined);
    assert.equal(flags.authorizationWebhookVersion, 'v1beta1');
    assert.equal(flags.authorizationWebhookCacheAuthorizedTtl, 300_000);
    assert.equal(flags.authorizationWebhookCacheUnauthorizedTtl, 30_000);
    assert.equal(authorizationWebhookFromFlags(flags, ['RBAC']), undefined);
  });

  it('take Go durations and pass everything to the authorizer when Webhook is a mode', () => {
    const flags = parse([
      '--authorization-webhook-config-file=/etc/authz.kubeconfig',
      '--authorization-webhook-version=v1',
      '--authorization-webhook-cache-authorized-ttl=1h30m',
      '--authorization-webhook-cache-unauthorized-ttl=0s',
    ]);
    assert.deepEqual(authorizationWebhookFromFlags(flags, ['Node', 'Webhook', 'RBAC']), {
      configFile: '/etc/authz.kubeconfig',
      version: 'v1',
      cacheAuthorizedTTLMs: 5_400_000,
      cacheUnauthorizedTTLMs: 0,
    });
  });

  it('refuse durations that are not Go durations', () => {
    assert.throws(() => parse(['--authorization-webhook-cache-authorized-ttl=5']), /invalid duration "5"/);
    assert.throws(() => parse(['--authorization-webhook-cache-unauthorized-ttl=-1s']), /must not be negative/);
  });

  it("refuse mode Webhook without a config file, and a config file without mode Webhook, in upstream's words", () => {
    assert.throws(() => authorizationWebhookFromFlags(parse([]), ['Webhook', 'RBAC']), { message: "authorization-mode Webhook's authorization config file not passed" });
    assert.throws(() => authorizationWebhookFromFlags(parse(['--authorization-webhook-config-file=/x']), ['RBAC']), {
      message: 'cannot specify --authorization-webhook-config-file without mode Webhook',
    });
  });
});
