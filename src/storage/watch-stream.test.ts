import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageEvent } from './interface.js';
import { WatchStream } from './watch-stream.js';

const put = (n: number): StorageEvent => ({
  type: 'PUT',
  kv: { key: `k${n}`, value: new Uint8Array(), createRevision: n, modRevision: n },
});

async function drain(stream: WatchStream): Promise<number[]> {
  const seen: number[] = [];
  for await (const e of stream) seen.push(e.type === 'PUT' ? e.kv.modRevision : e.revision);
  return seen;
}

describe('WatchStream', () => {
  it('delivers buffered and live events in order, then ends on cancel', async () => {
    const stream = new WatchStream();
    stream.push(put(1));
    stream.push(put(2));
    const reading = drain(stream);
    stream.push(put(3));
    await Promise.resolve();
    stream.push(put(4));
    stream.cancel();
    stream.push(put(5)); // ignored after the end
    assert.deepEqual(await reading, [1, 2, 3, 4]);
  });

  it('fails after the buffered events, with the error given', async () => {
    const stream = new WatchStream();
    stream.push(put(1));
    stream.fail(new Error('boom'));
    const seen: number[] = [];
    await assert.rejects(async () => {
      for await (const e of stream) seen.push(e.type === 'PUT' ? e.kv.modRevision : 0);
    }, /boom/);
    assert.deepEqual(seen, [1]);
  });

  it('wakes a waiting reader on failure', async () => {
    const stream = new WatchStream();
    const pending = stream[Symbol.asyncIterator]().next();
    stream.fail(new Error('gone'));
    await assert.rejects(pending, /gone/);
  });

  it('calls onCancel once, and break in for-await cancels', async () => {
    let cancels = 0;
    const stream = new WatchStream(() => cancels++);
    stream.push(put(1));
    stream.push(put(2));
    for await (const _ of stream) break;
    stream.cancel();
    assert.equal(cancels, 1);
    assert.equal(stream.done, true);
  });

  it('asks its backend once per pending progress request, answers in order with the events, and not after it ends', async () => {
    const asked: WatchStream[] = [];
    const stream = new WatchStream(undefined, (s) => asked.push(s));
    stream.pushProgress(7); // nothing asked: ignored
    stream.requestProgress();
    stream.requestProgress();
    assert.equal(asked.length, 1, 'coalesced until answered');
    assert.equal(stream.wantsProgress, true);
    stream.push(put(1));
    stream.pushProgress(3);
    stream.pushProgress(4); // already answered: ignored
    stream.requestProgress();
    assert.equal(asked.length, 2);
    stream.end();
    stream.requestProgress();
    assert.equal(asked.length, 2, 'an ended stream asks nothing');
    const items: string[] = [];
    for await (const item of stream) items.push(item.type === 'PROGRESS' ? `progress ${item.revision}` : `${item.type}`);
    assert.deepEqual(items, ['PUT', 'progress 3']);
  });

  it('keeps order across a large backlog', async () => {
    const stream = new WatchStream();
    for (let i = 1; i <= 5000; i++) stream.push(put(i));
    stream.end();
    const seen = await drain(stream);
    assert.equal(seen.length, 5000);
    assert.ok(seen.every((n, i) => n === i + 1));
  });
});
