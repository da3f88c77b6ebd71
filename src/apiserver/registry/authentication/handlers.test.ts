import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError, unauthorized } from '../../../machinery/status.js';
import type { TokenAuthenticator } from '../../auth/authenticators/interface.js';
import { InvalidTokenError } from '../../auth/authenticators/service-account-token.js';
import { authenticationHandlers } from './handlers.js';
import { fakePost } from './testing/fake-post.js';

const tokens: TokenAuthenticator = {
  authenticateToken: (token, options) => {
    if (token === 'expired') throw Object.assign(unauthorized(), { cause: new InvalidTokenError('token is expired') });
    if (token !== 'good') return undefined;
    const audiences = options?.audiences ?? ['api'];
    return { user: { name: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scope: ['a'] } }, audiences };
  },
};
const handlers = authenticationHandlers({ tokens });
const handler = (key: string) => handlers.get(key)!;

async function review(spec: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { ctx, answer } = fakePost('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
  await handler('authentication.k8s.io/v1/tokenreviews')(ctx);
  const a = answer();
  assert.equal(a.status, 201);
  return a.body;
}

describe('TokenReview', () => {
  it('answers an accepted token with the user and its audiences', async () => {
    const body = await review({ token: 'good' });
    assert.deepEqual(body.status, {
      authenticated: true,
      user: { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scope: ['a'] } },
      audiences: ['api'],
    });
    assert.equal(body.kind, 'TokenReview');
  });

  it('passes the requested audiences on', async () => {
    const body = await review({ token: 'good', audiences: ['vault'] });
    assert.deepEqual((body.status as { audiences: string[] }).audiences, ['vault']);
  });

  it('answers an unknown token with authenticated false and upstream\'s error', async () => {
    assert.deepEqual((await review({ token: 'unknown' })).status, { user: {}, error: 'invalid bearer token' });
  });

  it('answers a refused token with the reason', async () => {
    assert.deepEqual((await review({ token: 'expired' })).status, { user: {}, error: 'token is expired' });
  });

  it('requires a token (400)', async () => {
    const { ctx } = fakePost('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} });
    await assert.rejects(handler('authentication.k8s.io/v1/tokenreviews')(ctx), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'token is required for TokenReview in authentication');
  });
});

describe('SelfSubjectReview', () => {
  for (const version of ['v1', 'v1beta1']) {
    it(`answers ${version} with the request's user`, async () => {
      const user = { name: 'bob', groups: ['system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=ab'] } };
      const { ctx, answer } = fakePost(`/apis/authentication.k8s.io/${version}/selfsubjectreviews`, { apiVersion: `authentication.k8s.io/${version}`, kind: 'SelfSubjectReview' }, user);
      await handler(`authentication.k8s.io/${version}/selfsubjectreviews`)(ctx);
      const a = answer();
      assert.equal(a.status, 201);
      assert.equal(a.body.apiVersion, `authentication.k8s.io/${version}`);
      assert.match(String((a.body.metadata as { creationTimestamp: string }).creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(a.body.status, { userInfo: { username: 'bob', groups: ['system:authenticated'], extra: user.extra } });
    });
  }

  it('refuses a request without a user (400)', async () => {
    const { ctx } = fakePost('/apis/authentication.k8s.io/v1/selfsubjectreviews', {});
    await assert.rejects(handler('authentication.k8s.io/v1/selfsubjectreviews')(ctx), (e: unknown) => e instanceof StatusError && e.code === 400);
  });
});
