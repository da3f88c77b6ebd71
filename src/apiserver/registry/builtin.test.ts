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
