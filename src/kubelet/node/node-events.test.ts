import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeStatus } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../../client/record/interface.js';
import { recordConditionEvents } from './node-events.js';

const status = (ready: 'True' | 'False', memory: 'True' | 'False' = 'False'): NodeStatus => ({
  conditions: [
    { type: 'MemoryPressure', status: memory },
    { type: 'Ready', status: ready },
  ],
});

describe('node events', () => {
  it('records "Node <name> status is now: <reason>" for every condition that moved, about the Node (uid = its name)', () => {
    const events: string[] = [];
    const recorder: EventRecorder = { event: (o, type, reason, message) => void events.push(`${o.kind}/${o.metadata.name}/${o.metadata.uid} ${type} ${reason}: ${message}`) };
    recordConditionEvents(recorder, 'node-a', status('False'), undefined);
    // The first Ready condition is no change: upstream records no NodeNotReady (nor NodeReady) for it.
    assert.deepEqual(events, ['Node/node-a/node-a Normal NodeHasSufficientMemory: Node node-a status is now: NodeHasSufficientMemory']);
    events.length = 0;
    recordConditionEvents(recorder, 'node-a', status('False'), status('False'));
    assert.deepEqual(events, []);
    recordConditionEvents(recorder, 'node-a', status('True', 'True'), status('False'));
    assert.deepEqual(events, ['Node/node-a/node-a Normal NodeHasInsufficientMemory: Node node-a status is now: NodeHasInsufficientMemory', 'Node/node-a/node-a Normal NodeReady: Node node-a status is now: NodeReady']);
  });
});
