import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTROLLER_REVISION_HASH_LABEL, type ControllerRevisionObject } from '../history/controller-revision.js';
import { currentRevisionOf, decideUpdateRevision, setAtRevision, statefulSetRevision } from './revisions.js';
import { statefulSet } from './testing/fixtures.js';

const image = (tag: string) => statefulSet({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: `nginx:${tag}` }] } } });

describe('StatefulSet revisions', () => {
  it('records the template with the template labels, the hash label, the owner and the set annotations', () => {
    const set = image('1');
    set.metadata.annotations = { note: 'x' };
    const r = statefulSetRevision(set, 1, 0);
    assert.match(r.metadata.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(r.metadata.labels?.app, 'web');
    assert.ok(r.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL]);
    assert.deepEqual(r.metadata.annotations, { note: 'x' });
    assert.equal(r.metadata.ownerReferences?.[0]?.kind, 'StatefulSet');
    assert.deepEqual(setAtRevision(image('9'), r).spec?.template, set.spec?.template);
  });

  it('creates the first revision, keeps the newest when it matches, renumbers an older equal one (rollback)', () => {
    const first = decideUpdateRevision(image('1'), [], 0);
    assert.equal(first.kind, 'create');
    assert.equal(first.revision.revision, 1);
    const r1: ControllerRevisionObject = { ...first.revision, revision: 1 };
    assert.deepEqual(decideUpdateRevision(image('1'), [r1], 0), { kind: 'existing', revision: r1 });
    const second = decideUpdateRevision(image('2'), [r1], 0);
    assert.equal(second.kind, 'create');
    assert.equal(second.revision.revision, 2);
    const r2: ControllerRevisionObject = { ...second.revision, revision: 2 };
    assert.deepEqual(decideUpdateRevision(image('1'), [r1, r2], 0), { kind: 'renumber', revision: r1, to: 3 });
  });

  it('finds the current revision by status, else uses the update revision', () => {
    const r1 = statefulSetRevision(image('1'), 1, 0);
    const r2 = statefulSetRevision(image('2'), 2, 0);
    const set = image('2');
    assert.equal(currentRevisionOf(set, [r1, r2], r2), r2);
    Object.assign(set, { status: { replicas: 3, currentRevision: r1.metadata.name } });
    assert.equal(currentRevisionOf(set, [r1, r2], r2), r1);
  });
});
