import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedHeap } from './heap.js';

interface Item {
  id: string;
  n: number;
}

function newHeap(): KeyedHeap<Item> {
  return new KeyedHeap<Item>((x) => x.id, (a, b) => a.n < b.n);
}

function drain(h: KeyedHeap<Item>): number[] {
  const out: number[] = [];
  for (let item = h.pop(); item !== undefined; item = h.pop()) out.push(item.n);
  return out;
}

describe('KeyedHeap', () => {
  it('pops in order', () => {
    const h = newHeap();
    for (const n of [5, 3, 8, 1, 9, 2, 7]) h.addOrUpdate({ id: `k${n}`, n });
    assert.equal(h.size, 7);
    assert.equal(h.peek()?.n, 1);
    assert.deepEqual(drain(h), [1, 2, 3, 5, 7, 8, 9]);
    assert.equal(h.size, 0);
    assert.equal(h.pop(), undefined);
    assert.equal(h.peek(), undefined);
  });

  it('updates an item in place by key, up and down', () => {
    const h = newHeap();
    for (const n of [1, 2, 3, 4, 5]) h.addOrUpdate({ id: `k${n}`, n });
    h.addOrUpdate({ id: 'k5', n: 0 });
    h.addOrUpdate({ id: 'k1', n: 10 });
    assert.equal(h.size, 5);
    assert.deepEqual(drain(h), [0, 2, 3, 4, 10]);
  });

  it('gets, has and deletes by key from anywhere', () => {
    const h = newHeap();
    for (let n = 0; n < 20; n++) h.addOrUpdate({ id: `k${n}`, n: (n * 7) % 20 });
    assert.equal(h.get('k3')?.n, 1);
    assert.ok(h.has('k3'));
    assert.equal(h.delete('k3')?.n, 1);
    assert.equal(h.delete('k3'), undefined);
    assert.ok(!h.has('k3'));
    assert.equal(h.get('k3'), undefined);
    assert.equal(h.delete('k19')?.n, 13);
    const expected = [...Array(20).keys()].filter((n) => n !== 1 && n !== 13);
    assert.deepEqual(drain(h), expected);
  });

  it('deleting the last item leaves the others ordered', () => {
    const h = newHeap();
    h.addOrUpdate({ id: 'a', n: 1 });
    h.addOrUpdate({ id: 'b', n: 2 });
    h.delete('b');
    assert.deepEqual(h.list().map((x) => x.id), ['a']);
    assert.deepEqual(drain(h), [1]);
  });

  it('stays a heap under random operations', () => {
    const h = newHeap();
    const model = new Map<string, number>();
    let seed = 42;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let step = 0; step < 2000; step++) {
      const id = `k${Math.floor(rand() * 50)}`;
      if (rand() < 0.3) {
        h.delete(id);
        model.delete(id);
      } else {
        const n = Math.floor(rand() * 1000);
        h.addOrUpdate({ id, n });
        model.set(id, n);
      }
      assert.equal(h.size, model.size);
    }
    assert.deepEqual(drain(h), [...model.values()].sort((a, b) => a - b));
  });
});
