/**
 * ReplicaSets: upstream's defaults and validation (src/api/apps/v1), a
 * generation that moves with the spec, an immutable selector, `status.replicas`
 * selectable, status through /status only, and the /scale subresource.
 */
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { defaultReplicaSet } from '../../../../api/apps/v1/defaults.js';
import { validateReplicaSet, validateReplicaSetStatusUpdate, validateReplicaSetUpdate } from '../../../../api/apps/v1/validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { scaleHandlers } from '../deployment/scale.js';
import { replicaSetTable } from './table.js';

const strategies = newWorkloadStrategy<ReplicaSet>({
  hasStatus: true,
  // A status write may change metadata: upstream's rsStatusStrategy resets only spec.
  statusResetsMetadata: [],
  initialStatus: () => ({ replicas: 0 }),
  generation: true,
  validateName: nameIsDNSSubdomain,
  defaults: defaultReplicaSet,
  validate: validateReplicaSet,
  validateUpdate: validateReplicaSetUpdate,
  validateStatusUpdate: validateReplicaSetStatusUpdate,
  selectableFields: { 'status.replicas': (o) => String((o.status as { replicas?: number } | undefined)?.replicas ?? 0) },
  table: replicaSetTable as never,
});

export const replicaSetDefinition: ResourceDefinition = {
  strategy: strategies.strategy,
  ...(strategies.statusStrategy !== undefined ? { statusStrategy: strategies.statusStrategy } : {}),
  validateName: nameIsDNSSubdomain,
  subresourceHandlers: { scale: scaleHandlers },
};
