import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBadRequest } from '../../../machinery/status.js';
import { decodeContinueToken, encodeContinueToken } from './continue-token.js';

describe('continue token', () => {
  it('round-trips the revision and the key to continue after', () => {
    const token = encodeContinueToken('/registry/pods/', '/registry/pods/default/web-1', 42);
    assert.deepEqual(JSON.parse(Buffer.from(token, 'base64url').toString()), { v: 'meta.k8s.io/v1', rv: 42, start: 'default/web-1\u0000' });
    assert.deepEqual(decodeContinueToken('/registry/pods/', token), { revision: 42, afterKey: '/registry/pods/default/web-1' });
  });

  it('rejects garbage, other versions and keys outside the prefix with 400', () => {
    for (const bad of [
      'not base64 json',
      Buffer.from('{"v":"meta.k8s.io/v2","rv":1,"start":"a"}').toString('base64'),
      Buffer.from('{"v":"meta.k8s.io/v1","rv":"1","start":"a"}').toString('base64'),
      Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/x"}').toString('base64'),
      Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":""}').toString('base64'),
    ]) {
      assert.throws(() => decodeContinueToken('/registry/pods/', bad), isBadRequest, bad);
    }
  });
});
