/**
 * `kubectl get jobs`: STATUS (Complete, Failed, Terminating, Suspended,
 * FailureTarget, Running), COMPLETIONS (`1/3`, `0/1 of 4` for work queues),
 * DURATION from start to completion (or to now while running).
 */
import type { Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import {
  CONTAINERS_DESCRIPTION,
  IMAGES_DESCRIPTION,
  SELECTOR_DESCRIPTION,
  ageColumn,
  column,
  nameColumn,
  wideColumn,
} from '../../printing/columns.js';
import { containerCells } from '../../printing/containers.js';
import { humanDuration } from '../../printing/human-duration.js';
import { formatLabelSelector } from '../../printing/labels.js';
import { parseTime } from '../../printing/timestamps.js';
import { age } from '../../printing/timestamps.js';

/** Whether the first condition of `type` is true (upstream looks no further). */
function hasCondition(conditions: readonly JobCondition[] | undefined, type: string): boolean {
  const condition = conditions?.find((c) => c.type === type);
  return condition?.status === 'True';
}

function jobStatus(job: Job): string {
  const conditions = job.status?.conditions;
  if (hasCondition(conditions, 'Complete')) return 'Complete';
  if (hasCondition(conditions, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(conditions, 'Suspended')) return 'Suspended';
  if (hasCondition(conditions, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function completions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const wanted = job.spec?.completions;
  if (wanted !== undefined && wanted !== null) return `${succeeded}/${wanted}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Job, now: Date): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now.getTime()) - start);
}

export const jobTable: TableConvertor<Job> = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'State of the job, from its conditions.'),
    column('Completions', 'string', 'Succeeded pods out of the completions wanted.'),
    column('Duration', 'string', 'Time the job ran, or has been running.'),
    ageColumn(),
    wideColumn('Containers', 'string', CONTAINERS_DESCRIPTION),
    wideColumn('Images', 'string', IMAGES_DESCRIPTION),
    wideColumn('Selector', 'string', SELECTOR_DESCRIPTION),
  ],
  cells(job, now) {
    const [names, images] = containerCells(job.spec?.template?.spec?.containers);
    return [
      job.metadata?.name ?? '',
      jobStatus(job),
      completions(job),
      jobDuration(job, now),
      age(job, now),
      names,
      images,
      formatLabelSelector(job.spec?.selector),
    ];
  },
};
