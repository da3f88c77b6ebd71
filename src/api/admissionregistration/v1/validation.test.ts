import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFieldErrors } from '../../../machinery/field-errors.js';
import { defaultMutatingWebhookConfiguration, defaultValidatingWebhookConfiguration } from './defaults.js';
import type { Webhook, WebhookConfiguration } from './types.js';
import { validateMutatingWebhookConfiguration, validateValidatingWebhookConfiguration } from './validation.js';

const hook = (over: Partial<Webhook> = {}): Webhook => ({
  name: 'deny.example.com',
  clientConfig: { url: 'https://127.0.0.1:8443/validate' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...over,
});
const config = (...webhooks: Webhook[]): WebhookConfiguration => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' }, webhooks });
const messages = (c: WebhookConfiguration, mutating = false): string[] =>
  (mutating ? validateMutatingWebhookConfiguration(c) : validateValidatingWebhookConfiguration(c)).map((e) => formatFieldErrors([e]));

describe('webhook configuration defaults', () => {
  it('sets upstream defaults', () => {
    const c = config(hook({ clientConfig: { service: { namespace: 'ns', name: 'svc' } } }));
    defaultValidatingWebhookConfiguration(c);
    const h = c.webhooks![0]!;
    assert.equal(h.failurePolicy, 'Fail');
    assert.equal(h.matchPolicy, 'Equivalent');
    assert.equal(h.timeoutSeconds, 10);
    assert.deepEqual(h.namespaceSelector, {});
    assert.deepEqual(h.objectSelector, {});
    assert.equal(h.rules![0]!.scope, '*');
    assert.equal(h.clientConfig.service!.port, 443);
    assert.equal(h.reinvocationPolicy, undefined);
    const m = config(hook());
    defaultMutatingWebhookConfiguration(m);
    assert.equal(m.webhooks![0]!.reinvocationPolicy, 'Never');
  });

  it('keeps values that are set', () => {
    const c = config(hook({ failurePolicy: 'Ignore', timeoutSeconds: 3 }));
    defaultValidatingWebhookConfiguration(c);
    assert.equal(c.webhooks![0]!.failurePolicy, 'Ignore');
    assert.equal(c.webhooks![0]!.timeoutSeconds, 3);
  });
});

describe('webhook configuration validation', () => {
  it('accepts a good configuration', () => {
    assert.deepEqual(messages(config(hook())), []);
  });

  it('requires sideEffects and admissionReviewVersions', () => {
    const h = hook();
    delete h.sideEffects;
    delete h.admissionReviewVersions;
    assert.deepEqual(messages(config(h)), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
  });

  it('refuses Some and Unknown side effects on new objects, keeps them valid on old ones', () => {
    const bad = config(hook({ sideEffects: 'Unknown' }));
    assert.deepEqual(messages(bad), ['webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"']);
    assert.deepEqual(validateValidatingWebhookConfiguration(bad, bad), []);
  });

  it('checks names, duplicates, policies and timeouts', () => {
    const got = messages(config(hook({ name: 'short', failurePolicy: 'Maybe', matchPolicy: 'Close', timeoutSeconds: 31 }), hook({ name: 'short' })));
    assert.ok(got.includes('webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots'), got.join('\n'));
    assert.ok(got.includes('webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'));
    assert.ok(got.includes('webhooks[0].matchPolicy: Unsupported value: "Close": supported values: "Equivalent", "Exact"'));
    assert.ok(got.includes('webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'));
    assert.ok(got.includes('webhooks[1].name: Duplicate value: "short"'));
  });

  it('checks the client configuration', () => {
    assert.deepEqual(messages(config(hook({ clientConfig: {} }))), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    assert.deepEqual(messages(config(hook({ clientConfig: { url: 'http://a.example.com/x' } }))), [
      `webhooks[0].clientConfig.url: Invalid value: "http://a.example.com/x": 'https' is the only allowed URL scheme`,
    ]);
    assert.deepEqual(messages(config(hook({ clientConfig: { url: 'https://a.example.com/x?y=1' } }))), [
      'webhooks[0].clientConfig.url: Invalid value: "https://a.example.com/x?y=1": query parameters are not permitted in the URL',
    ]);
    assert.deepEqual(messages(config(hook({ clientConfig: { service: { namespace: 'n', name: 's', path: 'x', port: 0 } } }))), [
      'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      `webhooks[0].clientConfig.service.path: Invalid value: "x": must start with a '/'`,
    ]);
  });

  it('checks rules', () => {
    const got = messages(config(hook({ rules: [{ operations: ['*', 'CREATE'], apiGroups: [], apiVersions: ['v1'], resources: ['*', 'pods'], scope: 'Everywhere' }] })));
    assert.deepEqual(got, [
      `webhooks[0].rules[0].operations: Invalid value: [* CREATE]: if '*' is present, must not specify other operations`,
      'webhooks[0].rules[0].apiGroups: Required value',
      `webhooks[0].rules[0].resources[1]: Invalid value: "pods": if '*' is present, must not specify other resources without subresources`,
      'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
    ]);
  });

  it('checks reinvocationPolicy of mutating webhooks', () => {
    assert.deepEqual(messages(config(hook({ reinvocationPolicy: 'Always' })), true), [
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });
});

describe('webhook configuration validation of protobuf bodies', () => {
  it('treats null (an absent pointer) as unset', () => {
    const h = hook() as unknown as Record<string, unknown>;
    h.sideEffects = null;
    h.admissionReviewVersions = null;
    assert.deepEqual(messages(config(h as unknown as Webhook)), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
  });
});
