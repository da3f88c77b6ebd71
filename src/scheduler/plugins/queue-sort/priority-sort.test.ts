import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueuedPodInfo } from '../../framework/interfaces.js';
import { PodInfo } from '../../framework/types.js';
import { makePod } from '../../testing/fakes.js';
import { NAME, newPrioritySort } from './priority-sort.js';

function queued(priority: number | undefined, timestamp: number): QueuedPodInfo {
  const pod = makePod('p', priority === undefined ? {} : { priority });
  return { podInfo: new PodInfo(pod), timestamp, attempts: 0, initialAttemptTimestamp: timestamp, unschedulablePlugins: new Set(), pendingPlugins: new Set(), gated: false };
}

describe('PrioritySort', () => {
  const sort = newPrioritySort(undefined, undefined as never) as unknown as { name: string; less(a: QueuedPodInfo, b: QueuedPodInfo): boolean };

  it('is named as upstream', () => {
    assert.equal(NAME, 'PrioritySort');
    assert.equal(sort.name, NAME);
  });

  it('puts higher priority first, whatever the time', () => {
    assert.equal(sort.less(queued(10, 200), queued(5, 100)), true);
    assert.equal(sort.less(queued(5, 100), queued(10, 200)), false);
  });

  it('orders equal priorities by timestamp, a missing priority counting 0', () => {
    assert.equal(sort.less(queued(undefined, 100), queued(0, 200)), true);
    assert.equal(sort.less(queued(0, 200), queued(undefined, 100)), false);
    assert.equal(sort.less(queued(1, 100), queued(1, 100)), false);
  });
});
