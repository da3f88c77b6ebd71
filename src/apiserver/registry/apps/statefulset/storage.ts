/**
 * StatefulSets: upstream's defaults and validation (src/api/apps/v1): names
 * are DNS labels (they prefix pod host names), only replicas, ordinals,
 * template, update strategy, PVC retention and minReadySeconds may change,
 * status through /status only, and the /scale subresource.
 */
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import { defaultStatefulSet } from '../../../../api/apps/v1/defaults.js';
import {
  validateStatefulSet,
  validateStatefulSetName,
  validateStatefulSetStatusUpdate,
  validateStatefulSetUpdate,
} from '../../../../api/apps/v1/validation.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { scaleHandlers } from '../deployment/scale.js';
import { statefulSetTable } from './table.js';

const strategies = newWorkloadStrategy<StatefulSet>({
  hasStatus: true,
  // A status write may change metadata: upstream's statefulSetStatusStrategy resets only spec.
  statusResetsMetadata: [],
  // Upstream's StatefulSetStatus always writes replicas and availableReplicas.
  initialStatus: () => ({ availableReplicas: 0, replicas: 0 }),
  generation: true,
  validateName: validateStatefulSetName,
  defaults: defaultStatefulSet,
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  validateStatusUpdate: validateStatefulSetStatusUpdate,
  table: statefulSetTable as never,
});

export const statefulSetDefinition: ResourceDefinition = {
  strategy: strategies.strategy,
  ...(strategies.statusStrategy !== undefined ? { statusStrategy: strategies.statusStrategy } : {}),
  validateName: validateStatefulSetName,
  subresourceHandlers: { scale: scaleHandlers },
};
