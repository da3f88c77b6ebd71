/**
 * A binary min-heap of items addressed by a key (upstream's
 * backend/heap): the scheduling queue keeps its activeQ and backoffQ in one
 * each, keyed by pod uid, so that a pod can be looked up, updated in place or
 * removed in O(log n) without scanning.
 *
 * `less(a, b)` true means a comes out before b.
 *
 * @example
 *   const h = new KeyedHeap<{ id: string; n: number }>((x) => x.id, (a, b) => a.n < b.n);
 *   h.addOrUpdate({ id: 'a', n: 2 });
 *   h.addOrUpdate({ id: 'b', n: 1 });
 *   h.pop(); // { id: 'b', n: 1 }
 */
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly indexByKey = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.indexByKey.has(key);
  }

  get(key: string): T | undefined {
    const index = this.indexByKey.get(key);
    return index === undefined ? undefined : this.items[index];
  }

  /** Add the item, or replace the item with the same key and restore the order. */
  addOrUpdate(item: T): void {
    const key = this.keyOf(item);
    const index = this.indexByKey.get(key);
    if (index !== undefined) {
      this.items[index] = item;
      this.fix(index);
      return;
    }
    this.items.push(item);
    this.indexByKey.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  /** Remove the item with this key; the removed item, or undefined if absent. */
  delete(key: string): T | undefined {
    const index = this.indexByKey.get(key);
    if (index === undefined) return undefined;
    const removed = this.items[index]!;
    const last = this.items.length - 1;
    if (index !== last) {
      this.swap(index, last);
      this.items.pop();
      this.indexByKey.delete(key);
      this.fix(index);
    } else {
      this.items.pop();
      this.indexByKey.delete(key);
    }
    return removed;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const head = this.items[0];
    if (head === undefined) return undefined;
    this.delete(this.keyOf(head));
    return head;
  }

  /** Every item, in no particular order. */
  list(): T[] {
    return [...this.items];
  }

  private fix(index: number): void {
    if (!this.down(index)) this.up(index);
  }

  private up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.items[i]!, this.items[parent]!)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Sift down; true if the item moved. */
  private down(index: number): boolean {
    const n = this.items.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      let smallest = left;
      const right = left + 1;
      if (right < n && this.less(this.items[right]!, this.items[left]!)) smallest = right;
      if (!this.less(this.items[smallest]!, this.items[i]!)) break;
      this.swap(i, smallest);
      i = smallest;
    }
    return i > index;
  }

  private swap(i: number, j: number): void {
    const a = this.items[i]!;
    const b = this.items[j]!;
    this.items[i] = b;
    this.items[j] = a;
    this.indexByKey.set(this.keyOf(b), i);
    this.indexByKey.set(this.keyOf(a), j);
  }
}
