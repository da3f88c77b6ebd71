import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyRevision,
  CONTROLLER_REVISION_HASH_LABEL,
  controllerRevisionName,
  equalRevision,
  findEqualRevisions,
  hashControllerRevision,
  newControllerRevision,
  nextRevision,
  revisionMatchesTemplate,
  revisionsBeyondLimit,
  revisionTemplate,
  sortControllerRevisions,
  templatePatch,
  type ControllerRevisionObject,
} from './controller-revision.js';

const owner = {
  metadata: { name: 'web', namespace: 'ns', uid: 'u1' },
  spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
};
const ref = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u1', controller: true, blockOwnerDeletion: true };

function rev(name: string, revision: number, image: string, creationTimestamp = '2026-01-01T00:00:00Z'): ControllerRevisionObject {
  return {
    metadata: { name, creationTimestamp },
    revision,
    data: templatePatch({ spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }),
  };
}

describe('controller revisions', () => {
  it('names revisions <owner>-<hash>, cutting long owner names to 223 bytes', () => {
    assert.equal(controllerRevisionName('web', 'abc'), 'web-abc');
    assert.equal(controllerRevisionName('x'.repeat(300), 'h').length, 225);
  });

  it('makes the patch that replaces the template, and applies it back', () => {
    const patch = templatePatch(owner);
    assert.deepEqual(patch, { spec: { template: { ...owner.spec.template, $patch: 'replace' } } });
    assert.deepEqual(Object.keys((patch.spec as { template: object }).template), ['$patch', 'metadata', 'spec'], 'keys in Go order');
    const revision = newControllerRevision({ owner, controllerRef: ref, templateLabels: { app: 'web' }, data: patch, revision: 1, collisionCount: 0 });
    assert.deepEqual(revisionTemplate(revision), owner.spec.template);
    const changed = { ...owner, spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } };
    assert.deepEqual(applyRevision(changed, revision).spec.template, owner.spec.template);
    assert.equal(revisionMatchesTemplate(owner, revision), true);
    assert.equal(revisionMatchesTemplate(changed, revision), false);
  });

  it('leaves an owner alone when the revision holds no template', () => {
    const empty: ControllerRevisionObject = { metadata: { name: 'x' }, revision: 1, data: { spec: {} } };
    assert.equal(revisionTemplate(empty), undefined);
    assert.deepEqual(applyRevision(owner, empty), owner);
    assert.equal(templatePatch({}).spec !== undefined, true);
  });

  it('builds a revision with the template labels, the hash label, the controller ref and the annotations', () => {
    const revision = newControllerRevision({
      owner,
      controllerRef: ref,
      templateLabels: { app: 'web' },
      data: templatePatch(owner),
      revision: 3,
      collisionCount: 0,
      annotations: { a: 'b' },
    });
    const hash = hashControllerRevision(revision, 0);
    assert.equal(revision.metadata.name, `web-${hash}`);
    assert.deepEqual(revision.metadata.labels, { app: 'web', [CONTROLLER_REVISION_HASH_LABEL]: hash });
    assert.deepEqual(revision.metadata.ownerReferences, [ref]);
    assert.deepEqual(revision.metadata.annotations, { a: 'b' });
    assert.equal(revision.metadata.namespace, 'ns');
    assert.equal(revision.revision, 3);
  });

  it('changes the hash with the collision count and with the data, never with key order', () => {
    const a = rev('a', 1, 'nginx:1');
    assert.notEqual(hashControllerRevision(a, 0), hashControllerRevision(a, 1));
    assert.notEqual(hashControllerRevision(a), hashControllerRevision(rev('b', 1, 'nginx:2')));
    const reordered: ControllerRevisionObject = { ...a, data: { spec: { template: { $patch: 'replace', spec: { containers: [{ image: 'nginx:1', name: 'c' }] } } } } };
    assert.equal(hashControllerRevision(reordered, 0), hashControllerRevision(a, 0));
  });

  it('sorts by revision, then creation time, then name', () => {
    const sorted = sortControllerRevisions([
      rev('c', 2, 'x'),
      rev('b', 1, 'x', '2026-01-02T00:00:00Z'),
      rev('a', 1, 'x', '2026-01-02T00:00:00Z'),
      rev('z', 1, 'x', '2026-01-01T00:00:00Z'),
    ]);
    assert.deepEqual(sorted.map((r) => r.metadata.name), ['z', 'a', 'b', 'c']);
  });

  it('finds equal revisions by data, and rules out different numeric hash labels', () => {
    const a = rev('a', 1, 'nginx:1');
    const b = rev('b', 2, 'nginx:2');
    const c = rev('c', 3, 'nginx:1');
    assert.equal(equalRevision(a, c), true);
    assert.deepEqual(findEqualRevisions([a, b, c], a).map((r) => r.metadata.name), ['a', 'c']);
    const withLabels = (r: ControllerRevisionObject, h: string): ControllerRevisionObject => ({ ...r, metadata: { ...r.metadata, labels: { [CONTROLLER_REVISION_HASH_LABEL]: h } } });
    assert.equal(equalRevision(withLabels(a, '1'), withLabels(c, '2')), false);
    assert.equal(equalRevision(withLabels(a, 'bcd'), withLabels(c, 'fgh')), true);
  });

  it('numbers the next revision after the highest', () => {
    assert.equal(nextRevision([]), 1);
    assert.equal(nextRevision([rev('a', 4, 'x'), rev('b', 2, 'x')]), 5);
  });

  it('truncates history beyond the limit, oldest first, never a live revision', () => {
    const revisions = [rev('r1', 1, 'a'), rev('r2', 2, 'b'), rev('r3', 3, 'c'), rev('r4', 4, 'd'), rev('r5', 5, 'e')];
    assert.deepEqual(revisionsBeyondLimit(revisions, new Set(['r5', 'r1']), 1).map((r) => r.metadata.name), ['r2', 'r3']);
    assert.deepEqual(revisionsBeyondLimit(revisions, new Set(), 10), []);
    assert.deepEqual(revisionsBeyondLimit(revisions, new Set(['r5']), 0).map((r) => r.metadata.name), ['r1', 'r2', 'r3', 'r4']);
  });
});
