/**
 * Jobs: upstream's defaults and validation (src/api/batch/v1), the selector
 * and pod labels generated from the job's uid at creation (unless
 * `spec.manualSelector`), an immutable selector and pod template, a
 * generation that moves with the spec, status through /status only, and
 * `status.successful` selectable as upstream has it.
 */
import type { Job } from 'kubernetes-types/batch/v1.js';
import { defaultJob, generateJobSelector } from '../../../../api/batch/v1/defaults.js';
import { validateJob, validateJobStatusUpdate, validateJobUpdate } from '../../../../api/batch/v1/validation.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import { newWorkloadStrategy } from '../../core/pod/workload-strategy.js';
import type { ResourceDefinition } from '../../definition.js';
import { jobTable } from './table.js';

/**
 * Jobs being created whose selector is still to be generated. Upstream
 * generates it in PrepareForCreate, after the uid is set; the generic store
 * sets the uid after prepareForCreate, so the generation waits for the
 * defaults step that follows it.
 */
const awaitingSelector = new WeakSet<object>();

const strategies = newWorkloadStrategy<Job>({
  hasStatus: true,
  initialStatus: () => ({}),
  generation: true,
  validateName: nameIsDNSSubdomain,
  defaults: (job) => {
    if (awaitingSelector.has(job) && (job.metadata?.uid ?? '') !== '') {
      awaitingSelector.delete(job);
      generateJobSelector(job);
    }
    // After the selector: a job without labels of its own takes its pods' labels (upstream's SetDefaults_Job).
    defaultJob(job);
  },
  prepareForCreate: (job) => {
    awaitingSelector.add(job);
  },
  validate: (job) => validateJob(job),
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: validateJobStatusUpdate,
  selectableFields: { 'status.successful': (o) => String((o.status as { succeeded?: number } | undefined)?.succeeded ?? 0) },
  table: jobTable as never,
});

export const jobDefinition: ResourceDefinition = {
  strategy: strategies.strategy,
  ...(strategies.statusStrategy !== undefined ? { statusStrategy: strategies.statusStrategy } : {}),
  validateName: nameIsDNSSubdomain,
};
