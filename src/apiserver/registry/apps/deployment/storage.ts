/**
 * Deployments: upstream's defaults and validation (src/api/apps/v1), a
 * generation that moves with the spec, an immutable selector, status through
 * /status only, and the autoscaling/v1 /scale subresource.
 */
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { defaultDeployment } from '../../../../api/apps/v1/defaults.js';
import { validateDeployment, validateDeploymentStatusUpdate, validateDeploymentUpdate } from '../../../../api/apps/v1/validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { scaleHandlers } from './scale.js';
import { deploymentTable } from './table.js';

const strategies = newWorkloadStrategy<Deployment>({
  hasStatus: true,
  // A status write may change metadata: upstream's deploymentStatusStrategy resets only spec and labels.
  statusResetsMetadata: ['labels'],
  initialStatus: () => ({}),
  generation: true,
  validateName: nameIsDNSSubdomain,
  defaults: defaultDeployment,
  validate: validateDeployment,
  validateUpdate: validateDeploymentUpdate,
  validateStatusUpdate: validateDeploymentStatusUpdate,
  table: deploymentTable as never,
});

export const deploymentStrategy = strategies.strategy;

export const deploymentDefinition: ResourceDefinition = {
  strategy: strategies.strategy,
  ...(strategies.statusStrategy !== undefined ? { statusStrategy: strategies.statusStrategy } : {}),
  validateName: nameIsDNSSubdomain,
  subresourceHandlers: { scale: scaleHandlers },
};
