/**
 * `kubectl get nodes`: STATUS from the Ready condition (`Ready`, `NotReady`,
 * `Unknown`, plus `SchedulingDisabled` when cordoned) and ROLES from
 * `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn, wideColumn } from '../../printing/columns.js';
import { sortedUnique } from '../../printing/lists.js';
import { NONE, UNKNOWN } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

function nodeStatus(node: Node): string {
  const status: string[] = [];
  // The last Ready condition wins, as a map keyed by type would keep it.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').pop();
  if (ready !== undefined) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  if (status.length === 0) status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Sorted roles named by the node's labels. */
export function nodeRoles(node: Node): string[] {
  const roles: string[] = [];
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (key.startsWith(ROLE_PREFIX)) {
      const role = key.slice(ROLE_PREFIX.length);
      if (role !== '') roles.push(role);
    } else if (key === ROLE_LABEL && value !== '') {
      roles.push(value);
    }
  }
  return sortedUnique(roles);
}

function address(node: Node, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address ?? NONE;
}

export const nodeTable: TableConvertor<Node> = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Readiness of the node, and whether scheduling is disabled.'),
    column('Roles', 'string', 'Roles of the node, from its node-role labels.'),
    ageColumn(),
    column('Version', 'string', 'Version of the kubelet on the node.'),
    wideColumn('Internal-IP', 'string', 'First internal IP address of the node.'),
    wideColumn('External-IP', 'string', 'First external IP address of the node.'),
    wideColumn('OS-Image', 'string', 'Operating system image of the node.'),
    wideColumn('Kernel-Version', 'string', 'Kernel version of the node.'),
    wideColumn('Container-Runtime', 'string', 'Container runtime and its version.'),
  ],
  cells(node, now) {
    const info = node.status?.nodeInfo;
    const roles = nodeRoles(node).join(',');
    return [
      node.metadata?.name ?? '',
      nodeStatus(node),
      roles === '' ? NONE : roles,
      age(node, now),
      info?.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info?.osImage || UNKNOWN,
      info?.kernelVersion || UNKNOWN,
      info?.containerRuntimeVersion || UNKNOWN,
    ];
  },
};
