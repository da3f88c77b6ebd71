import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unauthorized } from '../../../machinery/status.js';
import type { AuthenticationResult, TokenAuthenticator } from './interface.js';
import { isUnauthorized } from './testing/is-unauthorized.js';
import { newUnionTokenAuthenticator } from './union.js';

const accepts = (token: string, name: string): TokenAuthenticator => ({
  authenticateToken: (t) => (t === token ? { user: { name, groups: [] } } : undefined),
});
const rejects: TokenAuthenticator = {
  authenticateToken: () => {
    throw unauthorized('bad');
  },
};

describe('union token authenticator', () => {
  it('takes the first that accepts', async () => {
    const union = newUnionTokenAuthenticator([accepts('a', 'first'), accepts('a', 'second')]);
    assert.equal((await union.authenticateToken('a'))?.user.name, 'first');
  });

  it('asks the next one after a rejection', async () => {
    const union = newUnionTokenAuthenticator([rejects, accepts('a', 'second')]);
    assert.equal((await union.authenticateToken('a'))?.user.name, 'second');
  });

  it('throws the rejection when nobody accepts', async () => {
    const union = newUnionTokenAuthenticator([accepts('a', 'x'), rejects]);
    await assert.rejects(async () => union.authenticateToken('b'), isUnauthorized);
  });

  it('has no opinion when nobody knows the token', async () => {
    assert.equal(await newUnionTokenAuthenticator([accepts('a', 'x')]).authenticateToken('b'), undefined);
  });

  it('passes the audiences on', async () => {
    let seen: readonly string[] | undefined;
    const union = newUnionTokenAuthenticator([{ authenticateToken: (_t, o) => ((seen = o?.audiences), undefined) }]);
    await union.authenticateToken('t', { audiences: ['api'] });
    assert.deepEqual(seen, ['api']);
  });

  it('answers synchronously while every authenticator does, asynchronously from the first that does not', async () => {
    const union = newUnionTokenAuthenticator([rejects, accepts('a', 'sync')]);
    assert.equal((union.authenticateToken('a') as AuthenticationResult | undefined)?.user.name, 'sync');
    const later: TokenAuthenticator = { authenticateToken: async (t) => (t === 'b' ? { user: { name: 'async', groups: [] } } : undefined) };
    const mixed = newUnionTokenAuthenticator([accepts('a', 'sync'), later, accepts('c', 'after')]);
    const pending = mixed.authenticateToken('b');
    assert.ok(pending instanceof Promise);
    assert.equal((await pending)?.user.name, 'async');
    assert.equal((await mixed.authenticateToken('c'))?.user.name, 'after');
    assert.equal(await mixed.authenticateToken('d'), undefined);
  });

  it('keeps the first rejection when an asynchronous authenticator comes after it', async () => {
    const first: TokenAuthenticator = { authenticateToken: () => { throw unauthorized('first'); } };
    const laterRejects: TokenAuthenticator = { authenticateToken: async () => { throw unauthorized('second'); } };
    await assert.rejects(async () => newUnionTokenAuthenticator([first, laterRejects]).authenticateToken('x'), /first/);
    const asyncFirst: TokenAuthenticator = { authenticateToken: async () => { throw unauthorized('async first'); } };
    await assert.rejects(async () => newUnionTokenAuthenticator([asyncFirst, first]).authenticateToken('x'), /async first/);
    assert.equal((await newUnionTokenAuthenticator([asyncFirst, accepts('x', 'then sync')]).authenticateToken('x'))?.user.name, 'then sync');
  });
});
