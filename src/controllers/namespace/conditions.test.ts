import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONDITION_TYPES, failureConditions, updateConditions, type DeletionReport } from './conditions.js';

const empty: DeletionReport = { contentErrors: [], remainingByResource: new Map(), remainingByFinalizer: new Map() };
const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:01:00Z');

describe('namespace conditions', () => {
  it('a clean pass sets every owned condition False with its ok reason', () => {
    const { conditions, changed } = updateConditions([], failureConditions(empty, t0), t0);
    assert.equal(changed, true);
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
        ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
      ],
    );
    assert.equal(conditions[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(updateConditions(conditions, failureConditions(empty, t1), t1).changed, false);
  });

  it('remaining content and finalizers give upstream reasons and sorted messages', () => {
    const report: DeletionReport = {
      contentErrors: ['b failed', 'a failed'],
      remainingByResource: new Map([
        ['pods.', 2],
        ['configmaps.', 1],
      ]),
      remainingByFinalizer: new Map([
        ['example.com/x', 1],
        ['example.com/a', 2],
      ]),
      discoveryError: 'no discovery',
      groupVersionError: 'bad group version',
    };
    const failures = failureConditions(report, t0);
    const by = (type: string) => failures.find((c) => c.type === type);
    assert.deepEqual([by('NamespaceContentRemaining')?.reason, by('NamespaceContentRemaining')?.message], [
      'SomeResourcesRemain',
      'Some resources are remaining: configmaps. has 1 resource instances, pods. has 2 resource instances',
    ]);
    assert.deepEqual([by('NamespaceFinalizersRemaining')?.reason, by('NamespaceFinalizersRemaining')?.message], [
      'SomeFinalizersRemain',
      'Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/x in 1 resource instances',
    ]);
    assert.deepEqual([by('NamespaceDeletionContentFailure')?.reason, by('NamespaceDeletionContentFailure')?.message], [
      'ContentDeletionFailed',
      'Failed to delete all resource types, 2 remaining: a failed, b failed',
    ]);
    assert.equal(by('NamespaceDeletionDiscoveryFailure')?.reason, 'DiscoveryFailed');
    assert.equal(by('NamespaceDeletionGroupVersionParsingFailure')?.reason, 'GroupVersionParsingFailed');
    assert.ok(failures.every((c) => c.status === 'True'));
  });

  it('lastTransitionTime moves only when the status changes; other condition types are kept', () => {
    const start = updateConditions([{ type: 'Other', status: 'True' }], failureConditions(empty, t0), t0).conditions;
    const failing = failureConditions({ ...empty, remainingByResource: new Map([['pods.', 1]]) }, t1);
    const { conditions, changed } = updateConditions(start, failing, t1);
    assert.equal(changed, true);
    const remaining = conditions.find((c) => c.type === 'NamespaceContentRemaining');
    assert.equal(remaining?.status, 'True');
    assert.equal(remaining?.lastTransitionTime, '2026-01-01T00:01:00Z');
    const discovery = conditions.find((c) => c.type === 'NamespaceDeletionDiscoveryFailure');
    assert.equal(discovery?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(conditions[0]?.type, 'Other');
    assert.equal(conditions.length, 1 + CONDITION_TYPES.length);
    // Same status, new message: the time stays.
    const more = failureConditions({ ...empty, remainingByResource: new Map([['pods.', 3]]) }, new Date('2026-01-01T00:02:00Z'));
    const next = updateConditions(conditions, more, new Date('2026-01-01T00:02:00Z')).conditions.find((c) => c.type === 'NamespaceContentRemaining');
    assert.equal(next?.message, 'Some resources are remaining: pods. has 3 resource instances');
    assert.equal(next?.lastTransitionTime, '2026-01-01T00:01:00Z');
  });
});
