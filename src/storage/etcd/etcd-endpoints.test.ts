import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../errors.js';
import { parseEtcdEndpoints } from './etcd-endpoints.js';

describe('parseEtcdEndpoints', () => {
  it('turns one URL into host:port', () => {
    assert.deepEqual(parseEtcdEndpoints(['http://127.0.0.1:2379']), { target: '127.0.0.1:2379', secure: false });
    assert.deepEqual(parseEtcdEndpoints(['https://etcd.example:4001']), { target: 'etcd.example:4001', secure: true });
    assert.deepEqual(parseEtcdEndpoints(['http://localhost']), { target: 'localhost:2379', secure: false });
  });

  it('lists several IP members in one pick-first target', () => {
    assert.deepEqual(parseEtcdEndpoints(['http://10.0.0.1:2379', 'http://10.0.0.2:2379']), {
      target: 'ipv4:10.0.0.1:2379,10.0.0.2:2379',
      secure: false,
    });
    assert.deepEqual(parseEtcdEndpoints(['https://[::1]:2379', 'https://[::2]:2379']), {
      target: 'ipv6:[::1]:2379,[::2]:2379',
      secure: true,
    });
  });

  it('rejects what it cannot honour with InvalidArgument', () => {
    for (const endpoints of [
      [],
      ['127.0.0.1:2379'],
      ['unix:///run/etcd.sock'],
      ['http://127.0.0.1:2379/prefix'],
      ['http://10.0.0.1:2379', 'https://10.0.0.2:2379'],
      ['http://a.example:2379', 'http://b.example:2379'],
      ['http://10.0.0.1:2379', 'http://[::1]:2379'],
    ]) {
      assert.throws(() => parseEtcdEndpoints(endpoints), (e: unknown) => isStorageError(e, 'InvalidArgument'), endpoints.join(','));
    }
  });
});
