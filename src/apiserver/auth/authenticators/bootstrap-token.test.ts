import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bootstrapTokenSecret, DEFAULT_NODE_TOKEN_GROUP } from '../../../machinery/bootstrap-token.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { newBootstrapTokenAuthenticator } from './bootstrap-token.js';

const TOKEN = { id: 'abcdef', secret: '0123456789abcdef' };
const NOW = new Date('2026-06-01T00:00:00Z');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function authenticatorWith(secrets: KubeObject[]) {
  const refusals: string[] = [];
  const lookups: string[] = [];
  const authenticator = newBootstrapTokenAuthenticator({
    secret: async (namespace, name) => {
      lookups.push(`${namespace}/${name}`);
      return secrets.find((s) => s.metadata.namespace === namespace && s.metadata.name === name);
    },
    now: () => NOW,
    onRefused: (m) => refusals.push(m),
  });
  return { authenticator, refusals, lookups };
}

const secret = (options: Parameters<typeof bootstrapTokenSecret>[0] = { token: TOKEN }): KubeObject => structuredClone(bootstrapTokenSecret(options)) as unknown as KubeObject;
const withData = (s: KubeObject, key: string, value: string | undefined): KubeObject => {
  const data = { ...(s.data as Record<string, string>) };
  if (value === undefined) delete data[key];
  else data[key] = b64(value);
  return { ...s, data };
};

describe('bootstrap token authenticator', () => {
  it('authenticates a valid token as system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
    const { authenticator, lookups } = authenticatorWith([secret({ token: TOKEN, expires: new Date(NOW.getTime() + 60_000) })]);
    const result = await authenticator.authenticateToken('abcdef.0123456789abcdef');
    assert.deepEqual(result, { user: { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', DEFAULT_NODE_TOKEN_GROUP] } });
    assert.deepEqual(lookups, ['kube-system/bootstrap-token-abcdef']);
  });

  it('sorts and deduplicates the groups; no extra groups means system:bootstrappers alone', async () => {
    const many = secret({ token: TOKEN, extraGroups: ['system:bootstrappers:z', 'system:bootstrappers:a', 'system:bootstrappers:z'] });
    assert.deepEqual((await authenticatorWith([many]).authenticator.authenticateToken('abcdef.0123456789abcdef'))?.user.groups, [
      'system:bootstrappers',
      'system:bootstrappers:a',
      'system:bootstrappers:z',
    ]);
    const none = withData(secret(), 'auth-extra-groups', undefined);
    assert.deepEqual((await authenticatorWith([none]).authenticator.authenticateToken('abcdef.0123456789abcdef'))?.user.groups, ['system:bootstrappers']);
  });

  it('has no opinion on tokens of another shape, without looking anything up', async () => {
    const { authenticator, lookups } = authenticatorWith([secret()]);
    for (const token of ['abcdef', 'abcdef.0123456789abcdeF', 'abcde.0123456789abcdef', 'eyJhbGciOi.x.y']) assert.equal(await authenticator.authenticateToken(token), undefined);
    assert.deepEqual(lookups, []);
  });

  const refusedCases: [string, KubeObject[], RegExp][] = [
    ['a deleted (absent) Secret', [], /^No secret of name bootstrap-token-abcdef to match bootstrap bearer token$/],
    ['a Secret being deleted', [{ ...secret(), metadata: { ...secret().metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }], /is deleted and awaiting removal$/],
    ['another type', [{ ...secret(), type: 'Opaque' }], /has invalid type, expected bootstrap\.kubernetes\.io\/token\.$/],
    ['no data', [{ ...secret(), data: undefined }], /has invalid type/],
    ['a wrong secret', [withData(secret(), 'token-secret', 'ffffffffffffffff')], /has invalid value for key token-secret\.$/],
    ['a secret of another length', [withData(secret(), 'token-secret', 'short')], /has invalid value for key token-secret\.$/],
    ['another id in the data', [withData(secret(), 'token-id', 'zzzzzz')], /has invalid value for key token-id, expected abcdef\.$/],
    ['an expired token', [secret({ token: TOKEN, expires: new Date(NOW.getTime() - 1000) })], /has expired\.$/],
    ['an expiration of exactly now', [secret({ token: TOKEN, expires: NOW })], /has expired\.$/],
    ['an unparseable expiration', [withData(secret(), 'expiration', 'tomorrow')], /has expired\.$/],
    ['usage-bootstrap-authentication false', [withData(secret(), 'usage-bootstrap-authentication', 'false')], /not marked usage-bootstrap-authentication=true\.$/],
    ['usage-bootstrap-authentication absent', [withData(secret(), 'usage-bootstrap-authentication', undefined)], /not marked usage-bootstrap-authentication=true\.$/],
    ['a group outside system:bootstrappers:', [secret({ token: TOKEN, extraGroups: ['system:masters'] })], /has invalid value for key auth-extra-groups: bootstrap group "system:masters" is invalid/],
    ['an empty group in the list', [withData(secret(), 'auth-extra-groups', 'system:bootstrappers:a,')], /bootstrap group "" is invalid/],
  ];
  for (const [what, secrets, why] of refusedCases) {
    it(`refuses ${what}`, async () => {
      const { authenticator, refusals } = authenticatorWith(secrets);
      assert.equal(await authenticator.authenticateToken('abcdef.0123456789abcdef'), undefined);
      assert.equal(refusals.length, 1);
      assert.match(refusals[0]!, why);
      assert.doesNotMatch(refusals[0]!, /0123456789abcdef/, 'the secret is never logged');
    });
  }

  it('accepts an expiration with an offset and fractional seconds', async () => {
    const later = withData(secret(), 'expiration', '2026-06-01T01:00:00.5+00:30');
    assert.notEqual(await authenticatorWith([later]).authenticator.authenticateToken('abcdef.0123456789abcdef'), undefined);
  });
});
