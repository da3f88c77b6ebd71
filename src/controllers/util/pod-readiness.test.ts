import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodActive, isPodAvailable, isPodReady, isPodTerminating, msUntilAvailable } from './pod-readiness.js';

const readyPod = (status: string, lastTransitionTime?: string): Pod => ({
  status: { phase: 'Running', conditions: [{ type: 'Ready', status, ...(lastTransitionTime ? { lastTransitionTime } : {}) }] },
});

describe('pod readiness', () => {
  it('ready is the Ready condition True', () => {
    assert.equal(isPodReady(readyPod('True')), true);
    assert.equal(isPodReady(readyPod('False')), false);
    assert.equal(isPodReady({}), false);
  });

  it('available: ready for longer than minReadySeconds', () => {
    const now = new Date('2024-01-01T00:00:10Z');
    assert.equal(isPodAvailable(readyPod('True'), 0, now), true);
    assert.equal(isPodAvailable(readyPod('False'), 0, now), false);
    assert.equal(isPodAvailable(readyPod('True', '2024-01-01T00:00:00Z'), 10, now), false);
    assert.equal(isPodAvailable(readyPod('True', '2024-01-01T00:00:00Z'), 9, now), true);
    assert.equal(isPodAvailable(readyPod('True'), 5, now), false, 'no transition time: never available with minReadySeconds');
    assert.equal(isPodAvailable(readyPod('True', 'garbage'), 5, now), false);
  });

  it('msUntilAvailable: when a ready pod will be available', () => {
    const now = new Date('2024-01-01T00:00:04Z');
    assert.equal(msUntilAvailable(readyPod('True', '2024-01-01T00:00:00Z'), 5, now), 1001);
    assert.equal(msUntilAvailable(readyPod('True', '2024-01-01T00:00:00Z'), 3, now), undefined);
    assert.equal(msUntilAvailable(readyPod('False', '2024-01-01T00:00:00Z'), 5, now), undefined);
    assert.equal(msUntilAvailable(readyPod('True', '2024-01-01T00:00:00Z'), 0, now), undefined);
    assert.equal(msUntilAvailable(readyPod('True'), 5, now), undefined);
  });

  it('active: not finished and not being deleted; terminating: being deleted and not finished', () => {
    assert.equal(isPodActive({ status: { phase: 'Pending' } }), true);
    assert.equal(isPodActive({ status: { phase: 'Succeeded' } }), false);
    assert.equal(isPodActive({ status: { phase: 'Failed' } }), false);
    assert.equal(isPodActive({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } }), false);
    assert.equal(isPodTerminating({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } }), true);
    assert.equal(isPodTerminating({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Failed' } }), false);
    assert.equal(isPodTerminating({}), false);
  });
});
