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

  it('words each failure as upstream’s DecodeContinue, behind "invalid continue token: "', () => {
    const b64 = (text: string): string => Buffer.from(text).toString('base64url');
    const cases: [string, string][] = [
      ['not base64 json', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 3'],
      [b64('{"v":"meta.k8s.io/v2","rv":1,"start":"a"}'), 'invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2'],
      [b64('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'), 'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
      [b64('{"v":"meta.k8s.io/v1","rv":1,"start":""}'), 'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)'],
      [b64('{"v":"meta.k8s.io/v1","rv":"1","start":"a"}'), 'invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64'],
      [b64('{"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/x"}'), 'invalid continue token: continue key is not valid: ../secrets/x'],
    ];
    for (const [token, message] of cases) {
      assert.throws(() => decodeContinueToken('/registry/pods/', token), (e: unknown) => (e as Error).message === message, token);
    }
  });

  it('takes a name with two dots inside and a start with a leading slash, as path.Clean leaves them', () => {
    const token = Buffer.from('{"v":"meta.k8s.io/v1","rv":7,"start":"/default/a..b\\u0000"}').toString('base64url');
    assert.deepEqual(decodeContinueToken('/registry/roles/', token), { revision: 7, afterKey: '/registry/roles/default/a..b' });
  });
});
