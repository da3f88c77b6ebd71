import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregatedRules } from './aggregation.js';
import { bootstrapClusterRoles } from './cluster-roles.js';

describe('aggregatedRules', () => {
  it('gathers the rules of matching roles in name order, each once', () => {
    const roles = [
      { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] } },
      { metadata: { name: 'a', labels: { x: 'true' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
      { metadata: { name: 'b', labels: { x: 'true' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }] },
      { metadata: { name: 'c' }, rules: [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }] },
    ];
    assert.deepEqual(aggregatedRules(roles[0]!, roles), [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
    assert.equal(aggregatedRules(roles[1]!, roles), undefined);
  });

  it('makes view part of edit and edit part of admin in the bootstrap policy', () => {
    const roles = bootstrapClusterRoles().sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    const view = aggregatedRules(roles.find((r) => r.metadata?.name === 'view')!, roles)!;
    assert.ok(view.some((r) => r.resources?.includes('pods') && r.verbs.includes('list')));
    const edit = aggregatedRules(roles.find((r) => r.metadata?.name === 'edit')!, roles)!;
    assert.ok(edit.some((r) => r.resources?.includes('pods/exec')));
    const admin = aggregatedRules(roles.find((r) => r.metadata?.name === 'admin')!, roles)!;
    assert.ok(admin.some((r) => r.resources?.includes('rolebindings')));
  });
});
