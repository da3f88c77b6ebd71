import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeToStatus } from '../node-to-status.js';
import { Code, Status } from '../status.js';
import { noNodesAvailableMessage } from './fit-error-message.js';

describe('noNodesAvailableMessage', () => {
  it('counts each reason of each node, absent nodes with the absent status, sorted as strings', () => {
    const statuses = new NodeToStatus(new Status(Code.UnschedulableAndUnresolvable, ['Preemption is not helpful for scheduling']));
    statuses.set('b', new Status(Code.UnschedulableAndUnresolvable, ['No preemption victims found for incoming pod']));
    statuses.set('c', new Status(Code.UnschedulableAndUnresolvable, ['No preemption victims found for incoming pod']));
    assert.equal(
      noNodesAvailableMessage(3, statuses),
      '0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
  });

  it('counts several reasons of one node separately, and every node when none has an entry', () => {
    const statuses = new NodeToStatus(new Status(Code.UnschedulableAndUnresolvable, ['Preemption is not helpful for scheduling']));
    statuses.set('a', new Status(Code.Unschedulable, ['Insufficient cpu', 'Insufficient memory']));
    assert.equal(noNodesAvailableMessage(1, statuses), '0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.');
    assert.equal(noNodesAvailableMessage(3, new NodeToStatus(new Status(Code.UnschedulableAndUnresolvable, ['Preemption is not helpful for scheduling']))), '0/3 nodes are available: 3 Preemption is not helpful for scheduling.');
  });
});
