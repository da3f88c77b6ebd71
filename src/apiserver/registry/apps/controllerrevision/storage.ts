/** ControllerRevisions: immutable data and a non-negative revision, no status, no generation (upstream's strategy). */
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { defaultControllerRevision } from '../../../../api/apps/v1/defaults.js';
import { validateControllerRevision, validateControllerRevisionUpdate } from '../../../../api/apps/v1/validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { controllerRevisionTable } from './table.js';

const { strategy } = newWorkloadStrategy<ControllerRevision>({
  hasStatus: false,
  generation: false,
  validateName: nameIsDNSSubdomain,
  defaults: defaultControllerRevision,
  validate: validateControllerRevision,
  validateUpdate: validateControllerRevisionUpdate,
  table: controllerRevisionTable as never,
});

export const controllerRevisionDefinition: ResourceDefinition = { strategy, validateName: nameIsDNSSubdomain };
