/**
 * Nodes: cluster-scoped, stored under `minions` as upstream does, with a status
 * the kubelet writes and `spec.unschedulable` selectable (kubectl cordon).
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { validateNodeName } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { baseStrategy, statusStrategy, type Strategy } from '../../generic/strategy.js';
import { nodeTable } from './table.js';

export const nodeStrategy: Strategy = {
  ...baseStrategy,
  generation: false,
  selectableFields: {
    'spec.unschedulable': (o) => String((o.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true),
  },
  table: nodeTable as unknown as TableConvertor<KubeObject>,
};

export const nodeDefinition: ResourceDefinition = {
  strategy: nodeStrategy,
  statusStrategy: statusStrategy(nodeStrategy),
  storagePath: 'minions',
  validateName: validateNodeName,
};
