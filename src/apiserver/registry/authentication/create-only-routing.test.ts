import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../api/resources.js';
import { StatusError } from '../../../machinery/status.js';
import { newMemoryStorage } from '../../../storage/memory/memory-storage.js';
import { newResourceHandler } from '../../endpoints/installer.js';
import type { Handler } from '../../server/context.js';
import { builtinDefinitions } from '../builtin.js';
import { ObjectStorage } from '../generic/object-storage.js';
import { Registry } from '../registry.js';
import { fakePost } from './testing/fake-post.js';

describe('create-only resources in the resource handler', () => {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', watchCache: false, definitions: builtinDefinitions() });
  let calls = 0;
  const review: Handler = async () => {
    calls++;
  };
  const handler = newResourceHandler({ registry, createOnly: new Map([['authentication.k8s.io/v1/tokenreviews', review]]) });
  const failsWith = (code: number) => (e: unknown): boolean => e instanceof StatusError && e.code === code;

  function request(method: string, path: string): Promise<void> {
    const { ctx } = fakePost(path, {});
    (ctx.req as { method: string }).method = method;
    ctx.info = { ...ctx.info, ...(method === 'GET' ? { verb: 'list' } : {}) };
    return handler(ctx);
  }

  it('routes a POST to the collection to its handler', async () => {
    await request('POST', '/apis/authentication.k8s.io/v1/tokenreviews');
    assert.equal(calls, 1);
  });

  it('answers 405 to other verbs and to a named object, 404 inside a namespace', async () => {
    await assert.rejects(request('GET', '/apis/authentication.k8s.io/v1/tokenreviews'), failsWith(405));
    await assert.rejects(request('POST', '/apis/authentication.k8s.io/v1/tokenreviews/x'), failsWith(405));
    await assert.rejects(request('POST', '/apis/authentication.k8s.io/v1/namespaces/default/tokenreviews'), failsWith(404));
    assert.equal(calls, 1);
  });
});
