import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unauthorized } from '../../../machinery/status.js';
import type { TokenAuthenticator } from './interface.js';
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
});
