import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRequestAuthenticator } from '../../auth/authenticators/request-authenticator.js';
import { fakeRequest } from '../../auth/authenticators/testing/fake-request.js';
import { isUnauthorized } from '../../auth/authenticators/testing/is-unauthorized.js';
import type { Handler, RequestContext } from '../context.js';
import { withAuthentication } from './with-authentication.js';

function run(filterOptions: Parameters<typeof withAuthentication>[0], ctx: RequestContext): Promise<RequestContext> {
  let seen: RequestContext | undefined;
  const handler: Handler = async (c) => {
    seen = c;
  };
  return withAuthentication(filterOptions)(handler)(ctx).then(() => {
    if (seen === undefined) throw new Error('handler not reached');
    return seen;
  });
}

describe('withAuthentication', () => {
  it('lets anonymous requests reach the public paths only, while no authorizer decides', async () => {
    for (const path of ['/healthz', '/livez/ping', '/readyz', '/version']) {
      const ctx = await run({}, fakeRequest({ path }));
      assert.equal(ctx.user?.name, 'system:anonymous');
    }
    await assert.rejects(run({}, fakeRequest({ path: '/api/v1/pods' })), isUnauthorized);
  });

  it('hands anonymous requests on to the authorizer when told to', async () => {
    const ctx = await run({ anonymousPublicPathsOnly: false }, fakeRequest({ path: '/api/v1/pods' }));
    assert.deepEqual(ctx.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('answers a refused credential with the upstream 401 body (message Unauthorized)', async () => {
    const authenticator = newRequestAuthenticator({ tokenAuthenticators: [{ authenticateToken: () => undefined }] });
    await assert.rejects(run({ authenticator }, fakeRequest({ path: '/healthz', headers: { authorization: 'Bearer nope' } })), (e: unknown) => {
      assert.ok(isUnauthorized(e));
      assert.equal((e as Error).message, 'Unauthorized');
      return true;
    });
  });

  it('turns an authenticator failure into 401', async () => {
    const authenticator = { authenticate: async (): Promise<never> => Promise.reject(new Error('storage down')) };
    await assert.rejects(run({ authenticator }, fakeRequest()), isUnauthorized);
  });

  it('passes a synchronously authenticated request on at once, and an asynchronously authenticated one once it is known', async () => {
    const alice = { name: 'alice', groups: ['system:authenticated'] };
    let reached: string | undefined;
    const handler: Handler = async (c) => {
      reached = c.user?.name;
    };
    const sync = withAuthentication({ authenticator: { authenticate: () => ({ user: alice }) } })(handler)(fakeRequest());
    assert.equal(reached, 'alice');
    await sync;
    reached = undefined;
    const later = withAuthentication({ authenticator: { authenticate: async () => ({ user: { ...alice, name: 'bob' } }) } })(handler)(fakeRequest());
    assert.equal(reached, undefined);
    await later;
    assert.equal(reached, 'bob');
  });

  it('rejects (never throws) when a synchronous authenticator refuses, or the anonymous user may not pass', async () => {
    const refusing = withAuthentication({ authenticator: { authenticate: () => { throw new Error('bad certificate'); } } })(async () => {});
    const refused = refusing(fakeRequest());
    assert.ok(refused instanceof Promise);
    await assert.rejects(refused, isUnauthorized);
    const anonymous = withAuthentication({ authenticator: { authenticate: () => ({ user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } }) } })(async () => {});
    await assert.rejects(anonymous(fakeRequest({ path: '/api/v1/pods' })), isUnauthorized);
    const afterwards = withAuthentication({ authenticator: { authenticate: () => ({ user: { name: 'alice', groups: [] } }) } })(async () => {
      throw new Error('handler failed');
    });
    await assert.rejects(afterwards(fakeRequest()), /handler failed/);
  });
});
