import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ruleAllows } from './rule-matching.js';

const req = (over: Partial<Parameters<typeof ruleAllows>[0]> = {}) => ({
  isResourceRequest: true, verb: 'get', apiGroup: '', resource: 'pods', subresource: '', name: 'web', path: '', ...over,
});

describe('ruleAllows', () => {
  it('matches verbs, groups and resources exactly or by *', () => {
    assert.equal(ruleAllows(req(), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), true);
    assert.equal(ruleAllows(req(), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), true);
    assert.equal(ruleAllows(req({ verb: 'list' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), false);
    assert.equal(ruleAllows(req({ apiGroup: 'apps' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), false);
    assert.equal(ruleAllows(req(), { verbs: ['get'], apiGroups: [''], resources: ['services'] }), false);
    assert.equal(ruleAllows(req(), { apiGroups: [''], resources: ['pods'] } as never), false);
  });

  it('matches subresources as resource/subresource or */subresource, never by the bare resource', () => {
    const eviction = req({ verb: 'create', subresource: 'eviction' });
    assert.equal(ruleAllows(eviction, { verbs: ['create'], apiGroups: [''], resources: ['pods'] }), false);
    assert.equal(ruleAllows(eviction, { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] }), true);
    assert.equal(ruleAllows(eviction, { verbs: ['create'], apiGroups: [''], resources: ['*/eviction'] }), true);
    assert.equal(ruleAllows(req(), { verbs: ['get'], apiGroups: [''], resources: ['*/eviction'] }), false);
  });

  it('needs the name among resourceNames when the rule has any', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] };
    assert.equal(ruleAllows(req(), rule), true);
    assert.equal(ruleAllows(req({ name: 'db' }), rule), false);
    assert.equal(ruleAllows(req({ verb: 'list', name: '' }), rule), false);
  });

  it('matches non-resource URLs exactly, by * and by a prefix ending in *', () => {
    const api = req({ isResourceRequest: false, path: '/api/v1', resource: '', name: '' });
    assert.equal(ruleAllows(api, { verbs: ['get'], nonResourceURLs: ['/api/*'] }), true);
    assert.equal(ruleAllows(api, { verbs: ['get'], nonResourceURLs: ['*'] }), true);
    assert.equal(ruleAllows(api, { verbs: ['get'], nonResourceURLs: ['/api'] }), false);
    assert.equal(ruleAllows(api, { verbs: ['post'], nonResourceURLs: ['/api/*'] }), false);
    assert.equal(ruleAllows(api, { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }), false);
  });
});
