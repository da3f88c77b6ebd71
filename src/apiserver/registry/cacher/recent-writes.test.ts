import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../machinery/meta.js';
import { encode } from '../generic/object-storage.js';
import { RecentWrites } from './recent-writes.js';

const pod = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' } });
const kvOf = (key: string, object: KubeObject, modRevision = 7) => ({ key, value: new Uint8Array(encode(object)), createRevision: modRevision, modRevision });

describe('RecentWrites', () => {
  it('hands back the remembered object once, for the same key and bytes, with resourceVersion set', () => {
    const writes = new RecentWrites();
    const a = pod('a');
    writes.remember('/p/ns/a', encode(a), a);
    const taken = writes.take(kvOf('/p/ns/a', pod('a'), 9));
    assert.equal(taken, a);
    assert.equal(a.metadata.resourceVersion, '9');
    assert.equal(writes.take(kvOf('/p/ns/a', pod('a'))), undefined, 'used once');
    assert.equal(writes.size, 0);
  });

  it('hands back nothing for other bytes under the key (another writer), and drops the entry', () => {
    const writes = new RecentWrites();
    const a = pod('a');
    writes.remember('/p/ns/a', encode(a), a);
    assert.equal(writes.take(kvOf('/p/ns/a', { ...pod('a'), spec: { x: 1 } })), undefined);
    assert.equal(a.metadata.resourceVersion, undefined);
    assert.equal(writes.size, 0);
  });

  it('hands back nothing for a key it does not hold, or after forget', () => {
    const writes = new RecentWrites();
    const a = pod('a');
    writes.remember('/p/ns/a', encode(a), a);
    assert.equal(writes.take(kvOf('/p/ns/b', pod('b'))), undefined);
    writes.forget('/p/ns/a', pod('a'));
    assert.equal(writes.size, 1, 'forget of another object keeps the entry');
    writes.forget('/p/ns/a', a);
    assert.equal(writes.take(kvOf('/p/ns/a', pod('a'))), undefined);
  });

  it('keeps at most its capacity, dropping the oldest', () => {
    const writes = new RecentWrites(2);
    for (const name of ['a', 'b', 'c']) writes.remember(`/p/ns/${name}`, encode(pod(name)), pod(name));
    assert.equal(writes.size, 2);
    assert.equal(writes.take(kvOf('/p/ns/a', pod('a'))), undefined);
    assert.notEqual(writes.take(kvOf('/p/ns/c', pod('c'))), undefined);
  });
});
