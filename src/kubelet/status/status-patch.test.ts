import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { FAKE_STRATEGIC_PATCH_SCHEMA } from '../../client/testing/strategic-patch-schema.js';
import { strategicMergePatch } from '../../machinery/strategic-merge-patch/apply.js';
import { podStatusPatch } from './status-patch.js';

const apply = (old: PodStatus, patch: Record<string, unknown>): PodStatus =>
  (strategicMergePatch({ metadata: { name: 'p', uid: 'u' }, status: old as Record<string, unknown> }, patch, FAKE_STRATEGIC_PATCH_SCHEMA) as { status: PodStatus }).status;

describe('podStatusPatch', () => {
  const before: PodStatus = {
    phase: 'Pending',
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: 't0' },
      { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [a]', lastTransitionTime: 't1' },
    ],
    podIPs: [{ ip: '127.244.0.2' }],
    containerStatuses: [{ name: 'a', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
  };

  it('is undefined when nothing changed', () => {
    assert.equal(podStatusPatch(before, structuredClone(before), 'u'), undefined);
  });

  it('is undefined when the only differences are null or empty fields the API server does not keep (lastProbeTime: null, lastState: {})', () => {
    const asStored = structuredClone(before);
    asStored.containerStatuses![0]!.lastState = {};
    const desired = structuredClone(before) as unknown as { conditions: Record<string, unknown>[] };
    for (const condition of desired.conditions) condition.lastProbeTime = null;
    assert.equal(podStatusPatch(asStored, desired as unknown as PodStatus, 'u'), undefined);
    assert.equal(podStatusPatch(desired as unknown as PodStatus, asStored, 'u'), undefined);
  });

  it('carries the uid in metadata, changed fields, condition items by type with removed fields nulled, and replaces container statuses', () => {
    const after: PodStatus = {
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: 't0' },
        { type: 'Ready', status: 'True', lastTransitionTime: 't2' },
      ],
      podIPs: [{ ip: '127.244.0.2' }],
      containerStatuses: [{ name: 'a', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: 't2' } } }],
      startTime: 't0',
    };
    const patch = podStatusPatch(before, after, 'u')!;
    assert.deepEqual(patch.metadata, { uid: 'u' });
    assert.deepEqual((patch.status as Record<string, unknown>).conditions, [{ type: 'Ready', status: 'True', lastTransitionTime: 't2', reason: null, message: null }]);
    assert.equal((patch.status as Record<string, unknown>).podIPs, undefined);
    assert.deepEqual(apply(before, patch), after);
  });

  it('deletes list items that went and leaves out the uid for mirror pods', () => {
    const after: PodStatus = { ...before, conditions: [before.conditions![1]!], podIPs: [{ ip: '127.244.0.3' }] };
    const patch = podStatusPatch(before, after, undefined)!;
    assert.equal(patch.metadata, undefined);
    assert.deepEqual(apply(before, patch), after);
  });

  it('writes a whole status when nothing is known of the old one', () => {
    const patch = podStatusPatch(undefined, before, 'u')!;
    assert.deepEqual(apply({}, patch), before);
  });
});
