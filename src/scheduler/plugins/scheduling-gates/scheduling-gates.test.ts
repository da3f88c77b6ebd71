import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { Code } from '../../framework/status.js';
import { makePod } from '../../testing/fakes.js';
import { NAME, SchedulingGates } from './scheduling-gates.js';

describe('SchedulingGates', () => {
  const plugin = new SchedulingGates();

  it('lets a pod without gates in', () => {
    assert.equal(NAME, 'SchedulingGates');
    assert.equal(plugin.preEnqueue(makePod('p')), undefined);
    const empty = makePod('p');
    empty.spec!.schedulingGates = [];
    assert.equal(plugin.preEnqueue(empty), undefined);
  });

  it('holds a gated pod back with upstream\'s message', () => {
    const pod = makePod('p');
    pod.spec!.schedulingGates = [{ name: 'example.com/a' }, { name: 'b' }];
    const status = plugin.preEnqueue(pod);
    assert.equal(status?.code, Code.UnschedulableAndUnresolvable);
    assert.equal(status?.message(), 'waiting for scheduling gates: [example.com/a b]');
  });

  it('is re-queued by its own pod losing its gates, and only that pod', () => {
    const [registration] = plugin.eventsToRegister();
    assert.equal(registration?.event.actionType, ActionType.UpdatePodSchedulingGatesEliminated);
    const pod = makePod('p');
    const other = makePod('q');
    assert.equal(registration?.hint?.(pod, pod, pod), QueueingHint.Queue);
    assert.equal(registration?.hint?.(pod, other, other), QueueingHint.Skip);
  });
});
