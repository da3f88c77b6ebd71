/**
 * DaemonSets: upstream's defaults and validation (src/api/apps/v1), a
 * generation that moves with the spec, an immutable selector, status through
 * /status only.
 */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { defaultDaemonSet } from '../../../../api/apps/v1/defaults.js';
import { validateDaemonSet, validateDaemonSetStatusUpdate, validateDaemonSetUpdate } from '../../../../api/apps/v1/validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { daemonSetTable } from './table.js';

const strategies = newWorkloadStrategy<DaemonSet>({
  hasStatus: true,
  // A status write may change metadata: upstream's daemonSetStatusStrategy resets only spec.
  statusResetsMetadata: [],
  // Upstream's DaemonSetStatus always writes these four counters.
  initialStatus: () => ({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }),
  generation: true,
  validateName: nameIsDNSSubdomain,
  defaults: defaultDaemonSet,
  validate: validateDaemonSet,
  validateUpdate: validateDaemonSetUpdate,
  validateStatusUpdate: validateDaemonSetStatusUpdate,
  table: daemonSetTable as never,
});

export const daemonSetDefinition: ResourceDefinition = {
  strategy: strategies.strategy,
  ...(strategies.statusStrategy !== undefined ? { statusStrategy: strategies.statusStrategy } : {}),
  validateName: nameIsDNSSubdomain,
};
