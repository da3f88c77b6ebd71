import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Handler, RequestContext } from '../context.js';
import { withRequestInfo } from './with-request-info.js';

function request(method: string, path: string): RequestContext {
  return { req: { method }, path, query: new URLSearchParams() } as unknown as RequestContext;
}

describe('withRequestInfo', () => {
  it('reads the request info and passes the request on at once', async () => {
    let seen: RequestContext | undefined;
    const ctx = request('POST', '/api/v1/namespaces/ns/pods');
    const done = withRequestInfo(async (c) => void (seen = c))(ctx);
    assert.equal(seen, ctx);
    assert.deepEqual([ctx.info.verb, ctx.info.namespace, ctx.info.resource], ['create', 'ns', 'pods']);
    await done;
  });

  it('turns a handler that throws instead of rejecting into a rejection', async () => {
    const throwing = ((): Promise<void> => {
      throw new Error('thrown');
    }) as Handler;
    const result = withRequestInfo(throwing)(request('GET', '/healthz'));
    assert.ok(result instanceof Promise);
    await assert.rejects(result, /thrown/);
  });
});
