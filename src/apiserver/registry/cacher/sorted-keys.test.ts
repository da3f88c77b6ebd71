import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareKeys, SortedKeys } from './sorted-keys.js';

const bytewise = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('SortedKeys', () => {
  it('compares keys in UTF-8 byte order, surrogate pairs included', () => {
    const samples = ['', 'a', 'ab', 'b', 'é', '\uffff', '\ue000', '\ud83d\ude00', '\u{10000}', 'a\u{1f600}', 'a\uffff', 'Z', '/registry/pods/ns/a'];
    for (const a of samples) for (const b of samples) assert.equal(Math.sign(compareKeys(a, b)), Math.sign(bytewise(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  });

  it('keeps keys sorted through adds and deletes, and reads a prefix as one range', () => {
    const keys = new SortedKeys();
    keys.reset(['/p/ns2/b', '/p/ns/b', '/p/n/x']);
    keys.add('/p/ns/a');
    keys.add('/p/ns/a'); // present: no-op
    keys.add('/p/ns/c');
    keys.delete('/p/ns/b');
    keys.delete('/p/ns/zz'); // absent: no-op
    assert.equal(keys.size, 4);
    assert.deepEqual([...keys.range('/p/')], ['/p/n/x', '/p/ns/a', '/p/ns/c', '/p/ns2/b']);
    assert.deepEqual([...keys.range('/p/ns/')], ['/p/ns/a', '/p/ns/c']);
    assert.deepEqual([...keys.range('/p/ns/', '/p/ns/a')], ['/p/ns/c']);
    assert.deepEqual([...keys.range('/p/ns/', '/p/ns/b')], ['/p/ns/c'], 'after a key that is gone');
    assert.deepEqual([...keys.range('/q/')], []);
  });

  it('keeps UTF-8 byte order when keys with surrogate pairs come and go (JavaScript order differs for them)', () => {
    const keys = new SortedKeys();
    const all = ['/p/a', '/p/\uffff', '/p/\ue000x', '/p/\u{1f600}', '/p/\u{10000}b', '/p/z'];
    const expected = (present: string[]): string[] => [...present].sort((a, b) => bytewise(a, b));
    keys.reset(['/p/a', '/p/z']);
    keys.add('/p/\uffff');
    keys.add('/p/\u{1f600}');
    keys.add('/p/\ue000x');
    keys.add('/p/\u{10000}b');
    assert.deepEqual([...keys.range('/p/')], expected(all));
    keys.delete('/p/\u{1f600}');
    keys.delete('/p/\u{10000}b');
    // No surrogate left: plain string order again, and still byte order.
    keys.add('/p/\ue001');
    keys.add('/p/m');
    const left = ['/p/a', '/p/\uffff', '/p/\ue000x', '/p/z', '/p/\ue001', '/p/m'];
    assert.deepEqual([...keys.range('/p/')], expected(left));
    // A surrogate key looked for among plain ones.
    assert.deepEqual([...keys.range('/p/', '/p/\u{1f600}')], []);
    keys.reset(['/p/\u{1f600}', '/p/\uffff']);
    assert.deepEqual([...keys.range('/p/')], ['/p/\uffff', '/p/\u{1f600}']);
    keys.add('/p/\ue000');
    assert.deepEqual([...keys.range('/p/')], ['/p/\ue000', '/p/\uffff', '/p/\u{1f600}']);
  });
});
