import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EscalationGuard } from '../auth/authorizers/rbac/escalation.js';
import { builtinDefinitions } from './builtin.js';
import { definitionKey } from './registry.js';

/** The column names `kubectl get` prints (priority 0) and those only `-o wide` adds, as upstream's printers define them. */
const expected: [string, string, string[], string[]][] = [
  ['', 'ComponentStatus', ['Name', 'Status', 'Message', 'Error'], []],
  ['coordination.k8s.io', 'Lease', ['Name', 'Holder', 'Age'], []],
  ['discovery.k8s.io', 'EndpointSlice', ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'], []],
  ['policy', 'PodDisruptionBudget', ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'], []],
  ['rbac.authorization.k8s.io', 'ClusterRoleBinding', ['Name', 'Role', 'Age'], ['Users', 'Groups', 'ServiceAccounts']],
  ['rbac.authorization.k8s.io', 'RoleBinding', ['Name', 'Role', 'Age'], ['Users', 'Groups', 'ServiceAccounts']],
  ['rbac.authorization.k8s.io', 'ClusterRole', ['Name', 'Created At'], []],
  ['rbac.authorization.k8s.io', 'Role', ['Name', 'Created At'], []],
  ['scheduling.k8s.io', 'PriorityClass', ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy'], []],
];

const guard: EscalationGuard = { checkRole: async () => {}, checkBinding: async () => {} } as unknown as EscalationGuard;

describe('builtinDefinitions: each kind is printed with its own table', () => {
  for (const escalation of [undefined, guard]) {
    const definitions = builtinDefinitions(escalation === undefined ? {} : { escalation });
    for (const [group, kind, columns, wide] of expected) {
      it(`${group || 'core'} ${kind}${escalation === undefined ? '' : ' (with escalation checks)'}`, () => {
        const table = definitions.get(definitionKey(group, kind))?.strategy.table;
        assert.ok(table !== undefined, `${kind} has no table`);
        assert.deepEqual(
          table.columns.filter((c) => c.priority === 0).map((c) => c.name),
          columns,
        );
        assert.deepEqual(
          table.columns.filter((c) => c.priority > 0).map((c) => c.name),
          wide,
        );
      });
    }
  }
});

describe('builtinDefinitions: PUT semantics follow upstream’s strategies', () => {
  // Upstream's AllowCreateOnUpdate is true for exactly these of the kinds served here.
  const createOnUpdate = new Set([
    ':Endpoints',
    ':Event',
    ':LimitRange',
    ':Service',
    'coordination.k8s.io:Lease',
    'events.k8s.io:Event',
    'rbac.authorization.k8s.io:ClusterRole',
    'rbac.authorization.k8s.io:ClusterRoleBinding',
    'rbac.authorization.k8s.io:Role',
    'rbac.authorization.k8s.io:RoleBinding',
  ]);
  for (const escalation of [undefined, guard]) {
    const definitions = builtinDefinitions(escalation === undefined ? {} : { escalation });
    it(`a PUT creates only the kinds upstream lets it create${escalation === undefined ? '' : ' (with escalation checks)'}`, () => {
      for (const key of createOnUpdate) {
        const [group, kind] = key.split(':') as [string, string];
        assert.equal(definitions.get(definitionKey(group, kind))?.strategy.allowCreateOnUpdate, true, key);
      }
      for (const group of ['', 'apps', 'batch', 'policy', 'scheduling.k8s.io', 'discovery.k8s.io']) {
        for (const kind of ['ConfigMap', 'Secret', 'Pod', 'Namespace', 'Node', 'Deployment', 'Job', 'PodDisruptionBudget', 'PriorityClass', 'EndpointSlice']) {
          const def = definitions.get(definitionKey(group, kind));
          if (def !== undefined) assert.equal(def.strategy.allowCreateOnUpdate, false, `${group}:${kind}`);
        }
      }
    });
  }
  it('an update of a Lease must carry the resourceVersion it replaces', () => {
    assert.equal(builtinDefinitions().get(definitionKey('coordination.k8s.io', 'Lease'))?.strategy.allowUnconditionalUpdate, false);
    assert.equal(builtinDefinitions().get(definitionKey('', 'ConfigMap'))?.strategy.allowUnconditionalUpdate, true);
  });
});
