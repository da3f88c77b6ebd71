import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slowStartBatch } from './slow-start.js';

describe('slowStartBatch', () => {
  it('runs all calls in batches 1, 2, 4, …', async () => {
    let inFlight = 0;
    const batches: number[] = [];
    let current = 0;
    const call = async (): Promise<void> => {
      inFlight++;
      current = Math.max(current, inFlight);
      await Promise.resolve();
      inFlight--;
      if (inFlight === 0) {
        batches.push(current);
        current = 0;
      }
    };
    assert.deepEqual(await slowStartBatch(10, call), { successes: 10 });
    assert.deepEqual(batches, [1, 2, 4, 3]);
  });

  it('stops after the first batch with a failure and reports it', async () => {
    let calls = 0;
    const boom = new Error('quota');
    const result = await slowStartBatch(20, async () => {
      calls++;
      if (calls >= 3) throw boom;
    });
    assert.equal(calls, 3, 'batches 1 and 2 ran; the second failed once');
    assert.deepEqual(result, { successes: 2, error: boom });
  });

  it('zero calls: nothing runs', async () => {
    assert.deepEqual(await slowStartBatch(0, async () => assert.fail('called')), { successes: 0 });
  });
});
