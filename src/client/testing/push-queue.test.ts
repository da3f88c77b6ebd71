import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PushQueue } from './push-queue.js';

describe('PushQueue', () => {
  it('yields pushed items in order, waits for more, and ends after what was queued', async () => {
    const q = new PushQueue<number>();
    q.push(1);
    const seen: number[] = [];
    const done = (async () => {
      for await (const n of q) seen.push(n);
    })();
    q.push(2);
    q.end();
    q.push(3); // ignored: ended
    await done;
    assert.deepEqual(seen, [1, 2]);
    assert.equal(q.closed, true);
  });

  it('throws the error it was ended with, after the queued items; clear() drops them', async () => {
    const q = new PushQueue<string>();
    q.push('a');
    q.end(new Error('gone'));
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const s of q) seen.push(s);
      })(),
      /gone/,
    );
    assert.deepEqual(seen, ['a']);
    const cleared = new PushQueue<string>();
    cleared.push('x');
    cleared.clear();
    for await (const s of cleared) assert.fail(`nothing after clear, got ${s}`);
  });
});
