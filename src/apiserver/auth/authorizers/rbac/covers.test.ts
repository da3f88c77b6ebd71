import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactRules, compactString, covers } from './covers.js';

describe('covers', () => {
  it('covers atom by atom, with * and */subresource', () => {
    const owner = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] }];
    assert.equal(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/status'] }]).covered, true);
    assert.equal(covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['delete'], apiGroups: ['apps'], resources: ['deployments'] }]).covered, true);
    const r = covers(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]);
    assert.deepEqual(r.missing, [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }]);
  });
  it('needs the names of named rules, and any name for unnamed ones', () => {
    const named = [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }];
    assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }]).covered, true);
    assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]).covered, false);
  });
  it('covers URLs by prefix', () => {
    assert.equal(covers([{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/api/v1'] }]).covered, true);
    assert.equal(covers([{ verbs: ['get'], nonResourceURLs: ['/api/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis'] }]).covered, false);
  });
  it('compacts and prints missing rules as upstream', () => {
    const missing = covers([], [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }]).missing;
    assert.deepEqual(compactRules(missing).map(compactString), ['{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}', '{NonResourceURLs:["/x"], Verbs:["get"]}']);
  });
});
