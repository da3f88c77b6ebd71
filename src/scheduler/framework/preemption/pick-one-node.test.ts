import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../types.js';
import type { Victims } from './candidate.js';
import { earliestStartTimeOfHighestPriorityVictims, pickOneNodeForPreemption } from './pick-one-node.js';

function pod(name: string, priority: number, startTime?: string): Pod {
  return { metadata: { name, namespace: 'default', uid: name }, spec: { containers: [], priority }, status: startTime === undefined ? {} : { startTime } };
}

const victims = (pods: Pod[], numPDBViolations = 0): Victims => ({ pods, numPDBViolations });
const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('pickOneNodeForPreemption', () => {
  it('returns no node for no candidates and the only one for one', () => {
    assert.equal(pickOneNodeForPreemption(new Map()), '');
    assert.equal(pickOneNodeForPreemption(new Map([['a', victims([pod('p', 1)])]])), 'a');
  });

  it('prefers the node with the fewest PDB violations over everything else', () => {
    const m = new Map([
      ['a', victims([pod('a1', 1)], 1)],
      ['b', victims([pod('b1', 100), pod('b2', 100)], 0)],
    ]);
    assert.equal(pickOneNodeForPreemption(m, { now: NOW }), 'b');
  });

  it('then the lowest priority of the most important victim', () => {
    const m = new Map([
      ['a', victims([pod('a1', 10)])],
      ['b', victims([pod('b1', 5), pod('b2', 5), pod('b3', 5)])],
    ]);
    assert.equal(pickOneNodeForPreemption(m, { now: NOW }), 'b');
  });

  it('then the smallest sum of priorities (negative priorities count as fewer-is-better)', () => {
    const m = new Map([
      ['a', victims([pod('a1', 5), pod('a2', 4)])],
      ['b', victims([pod('b1', 5), pod('b2', 1)])],
    ]);
    assert.equal(pickOneNodeForPreemption(m, { now: NOW }), 'b');
    const negative = new Map([
      ['a', victims([pod('a1', -5), pod('a2', -5)])],
      ['b', victims([pod('b1', -5)])],
    ]);
    assert.equal(pickOneNodeForPreemption(negative, { now: NOW }), 'b');
  });

  it('prefers fewer victims of the same priority (each victim adds 2^31 to the sum)', () => {
    const m = new Map([
      ['a', victims([pod('a1', 0), pod('a2', 0)])],
      ['b', victims([pod('b1', 0)])],
    ]);
    assert.equal(pickOneNodeForPreemption(m, { now: NOW }), 'b');
  });

  it('then the latest start time of the most important victims, then the first node', () => {
    const m = new Map([
      ['a', victims([pod('a1', 3, '2025-01-01T00:00:00Z')])],
      ['b', victims([pod('b1', 3, '2025-06-01T00:00:00Z')])],
      ['c', victims([pod('c1', 3, '2025-03-01T00:00:00Z')])],
    ]);
    assert.equal(pickOneNodeForPreemption(m, { now: NOW }), 'b');
    const tie = new Map([
      ['x', victims([pod('x1', 3, '2025-01-01T00:00:00Z')])],
      ['y', victims([pod('y1', 3, '2025-01-01T00:00:00Z')])],
    ]);
    assert.equal(pickOneNodeForPreemption(tie, { now: NOW }), 'x');
  });

  it('uses the given score functions instead of the defaults', () => {
    const m = new Map([
      ['a', victims([pod('a1', 1)])],
      ['b', victims([pod('b1', 100)])],
    ]);
    assert.equal(pickOneNodeForPreemption(m, { scoreFuncs: [(node) => (node === 'b' ? 1 : 0)] }), 'b');
  });
});

describe('earliestStartTimeOfHighestPriorityVictims', () => {
  it('looks only at the victims of the highest priority; a pod not started counts as now', () => {
    const v = victims([pod('low-old', 1, '2020-01-01T00:00:00Z'), pod('high-new', 9, '2025-05-01T00:00:00Z'), pod('high-old', 9, '2025-02-01T00:00:00Z')]);
    assert.equal(earliestStartTimeOfHighestPriorityVictims(v, NOW), Date.parse('2025-02-01T00:00:00Z'));
    assert.equal(earliestStartTimeOfHighestPriorityVictims(victims([pod('p', 1)]), NOW), NOW);
    assert.equal(earliestStartTimeOfHighestPriorityVictims(victims([]), NOW), undefined);
  });
});
