import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { dedupOwnerReferences } from './owner-references.js';

const ref = (uid: string, name = 'a') => ({ apiVersion: 'v1', kind: 'Pod', name, uid });
const withRefs = (refs: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', ownerReferences: refs } }) as KubeObject;

describe('dedupOwnerReferences', () => {
  it('drops references equal to an earlier one and names their UIDs as upstream warns', () => {
    const object = withRefs([ref('1'), ref('2'), ref('1'), ref('1')]);
    assert.equal(
      dedupOwnerReferences(object, 'request'),
      '.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests. Duplicate UIDs: ["1" "1"]',
    );
    assert.deepEqual(object.metadata.ownerReferences, [ref('1'), ref('2')]);
  });
  it('says when the repeats came from mutating admission', () => {
    assert.match(dedupOwnerReferences(withRefs([ref('9'), ref('9')]), 'afterMutatingAdmission') ?? '', /^\.metadata\.ownerReferences contains duplicate entries after mutating admission happens; .* Duplicate UIDs: \["9"\]$/);
  });
  it('keeps references that share a UID but differ in another field, and leaves objects without repeats alone', () => {
    const object = withRefs([ref('1', 'a'), ref('1', 'b')]);
    assert.equal(dedupOwnerReferences(object, 'request'), undefined);
    assert.equal(object.metadata.ownerReferences?.length, 2);
    assert.equal(dedupOwnerReferences(withRefs([ref('1')]), 'request'), undefined);
    assert.equal(dedupOwnerReferences({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'request'), undefined);
  });
});
