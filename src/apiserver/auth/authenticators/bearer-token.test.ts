import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerTokenOf, newBearerTokenAuthenticator } from './bearer-token.js';
import type { TokenAuthenticator } from './interface.js';
import { fakeRequest } from './testing/fake-request.js';
import { isUnauthorized } from './testing/is-unauthorized.js';

const known: TokenAuthenticator = { authenticateToken: (t) => (t === 'good' ? { user: { name: 'u', groups: [] } } : undefined) };

describe('bearer token', () => {
  it('reads the token of a Bearer header, in any case of the scheme', () => {
    assert.equal(bearerTokenOf('Bearer abc'), 'abc');
    assert.equal(bearerTokenOf('bearer abc'), 'abc');
    assert.equal(bearerTokenOf('Bearer abc extra'), 'abc');
  });

  it('has no token for another scheme, an empty token or no header', () => {
    assert.equal(bearerTokenOf('Basic dXNlcjpwYXNz'), undefined);
    assert.equal(bearerTokenOf('Bearer'), undefined);
    assert.equal(bearerTokenOf('Bearer  '), undefined);
    assert.equal(bearerTokenOf(undefined), undefined);
    assert.equal(bearerTokenOf('Bearer  abc'), undefined, 'two spaces: the second word is empty, as upstream splits');
    assert.equal(bearerTokenOf(' BEARER abc '), 'abc');
    assert.equal(bearerTokenOf(['Bearer first', 'Bearer second']), 'first');
    assert.equal(bearerTokenOf('Bearer\tabc'), undefined, 'only a space separates the scheme');
  });

  it('authenticates a known token and removes the header', async () => {
    const ctx = fakeRequest({ headers: { authorization: 'Bearer good' } });
    const result = await newBearerTokenAuthenticator(known).authenticate(ctx);
    assert.equal(result?.user.name, 'u');
    assert.equal(ctx.req.headers.authorization, undefined);
  });

  it('refuses an unknown token with 401', async () => {
    const ctx = fakeRequest({ headers: { authorization: 'Bearer bad' } });
    await assert.rejects(async () => newBearerTokenAuthenticator(known).authenticate(ctx), isUnauthorized);
  });

  it('has no opinion without a bearer token', async () => {
    assert.equal(await newBearerTokenAuthenticator(known).authenticate(fakeRequest()), undefined);
  });

  it('answers synchronously for a synchronous token authenticator, asynchronously otherwise, with the same outcomes', async () => {
    const ctx = fakeRequest({ headers: { authorization: 'Bearer good' } });
    const result = newBearerTokenAuthenticator(known).authenticate(ctx);
    assert.ok(!(result instanceof Promise));
    assert.equal(result?.user.name, 'u');
    assert.equal(ctx.req.headers.authorization, undefined);
    const later: TokenAuthenticator = { authenticateToken: async (t) => known.authenticateToken(t) };
    const asyncCtx = fakeRequest({ headers: { authorization: 'Bearer good' } });
    const pending = newBearerTokenAuthenticator(later).authenticate(asyncCtx);
    assert.ok(pending instanceof Promise);
    assert.equal(asyncCtx.req.headers.authorization, 'Bearer good');
    assert.equal((await pending)?.user.name, 'u');
    assert.equal(asyncCtx.req.headers.authorization, undefined);
    const refused = fakeRequest({ headers: { authorization: 'Bearer bad' } });
    await assert.rejects(async () => newBearerTokenAuthenticator(later).authenticate(refused), isUnauthorized);
    assert.equal(refused.req.headers.authorization, 'Bearer bad');
  });
});
