import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Operation } from '../../interfaces.js';
import { ruleMatches } from './rules.js';

const target = (resource: string, subresource = '', namespace = 'default', operation: Operation = 'CREATE', group = '') => ({
  operation,
  resource: { group, version: 'v1', resource },
  subresource,
  namespace,
});
const rule = (resources: string[], extra: { scope?: string; operations?: string[]; apiGroups?: string[]; apiVersions?: string[] } = {}) => ({
  operations: ['CREATE'],
  apiGroups: [''],
  apiVersions: ['v1'],
  resources,
  ...extra,
});

describe('webhook rule matching', () => {
  it('matches operations, groups and versions, with *', () => {
    assert.equal(ruleMatches(rule(['pods']), target('pods')), true);
    assert.equal(ruleMatches(rule(['pods']), target('pods', '', 'default', 'UPDATE')), false);
    assert.equal(ruleMatches(rule(['pods'], { operations: ['*'] }), target('pods', '', 'default', 'DELETE')), true);
    assert.equal(ruleMatches(rule(['deployments']), target('deployments', '', 'default', 'CREATE', 'apps')), false);
    assert.equal(ruleMatches(rule(['deployments'], { apiGroups: ['*'], apiVersions: ['*'] }), target('deployments', '', 'default', 'CREATE', 'apps')), true);
  });

  it('matches resources and subresources as upstream', () => {
    assert.equal(ruleMatches(rule(['*']), target('pods')), true);
    assert.equal(ruleMatches(rule(['*']), target('pods', 'status')), false);
    assert.equal(ruleMatches(rule(['*/*']), target('pods', 'status')), true);
    assert.equal(ruleMatches(rule(['*/status']), target('pods', 'status')), true);
    assert.equal(ruleMatches(rule(['*/status']), target('pods')), false);
    assert.equal(ruleMatches(rule(['pods/*']), target('pods', 'binding')), true);
    assert.equal(ruleMatches(rule(['pods/*']), target('pods')), true);
    assert.equal(ruleMatches(rule(['pods']), target('pods', 'status')), false);
  });

  it('matches scope; namespaces are cluster-scoped', () => {
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), target('nodes', '', '')), true);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), target('pods')), false);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Namespaced' }), target('pods')), true);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Namespaced' }), target('namespaces', '', 'kube-system')), false);
    assert.equal(ruleMatches(rule(['*'], { scope: 'Cluster' }), target('namespaces', '', 'kube-system')), true);
  });
});
