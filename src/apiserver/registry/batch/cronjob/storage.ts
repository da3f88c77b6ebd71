/**
 * CronJobs: upstream's defaults and validation (src/api/batch/v1: schedule
 * syntax, time zone, concurrency policy, 52-character names), a generation
 * that moves with the spec, status through /status only.
 */
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import { defaultCronJob } from '../../../../api/batch/v1/defaults.js';
import { validateCronJob, validateCronJobStatusUpdate, validateCronJobUpdate } from '../../../../api/batch/v1/validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { cronJobTable } from './table.js';

const strategies = newWorkloadStrategy<CronJob>({
  hasStatus: true,
  initialStatus: () => ({}),
  generation: true,
  validateName: nameIsDNSSubdomain,
  defaults: defaultCronJob,
  validate: validateCronJob,
  validateUpdate: validateCronJobUpdate,
  validateStatusUpdate: validateCronJobStatusUpdate,
  table: cronJobTable as never,
});

export const cronJobDefinition: ResourceDefinition = {
  strategy: strategies.strategy,
  ...(strategies.statusStrategy !== undefined ? { statusStrategy: strategies.statusStrategy } : {}),
  validateName: nameIsDNSSubdomain,
};
