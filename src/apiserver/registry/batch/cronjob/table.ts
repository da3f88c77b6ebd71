/** `kubectl get cronjobs`: SCHEDULE, TIMEZONE, SUSPEND, ACTIVE jobs, LAST SCHEDULE. */
import type { CronJob } from 'kubernetes-types/batch/v1.js';
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
import { formatLabelSelector } from '../../printing/labels.js';
import { NONE } from '../../printing/placeholders.js';
import { age, timeSince } from '../../printing/timestamps.js';

export const cronJobTable: TableConvertor<CronJob> = {
  columns: [
    nameColumn(),
    column('Schedule', 'string', 'Cron schedule of the jobs.'),
    column('Timezone', 'string', 'Time zone the schedule is read in.'),
    // Upstream declares this column boolean but fills it with the text True/False.
    column('Suspend', 'boolean', 'Whether new jobs are held back.'),
    column('Active', 'integer', 'Number of jobs running now.'),
    column('Last Schedule', 'string', 'Time since a job was last scheduled.'),
    ageColumn(),
    wideColumn('Containers', 'string', CONTAINERS_DESCRIPTION),
    wideColumn('Images', 'string', IMAGES_DESCRIPTION),
    wideColumn('Selector', 'string', SELECTOR_DESCRIPTION),
  ],
  cells(cronJob, now) {
    const spec = cronJob.spec;
    const lastSchedule = cronJob.status?.lastScheduleTime;
    const jobSpec = spec?.jobTemplate?.spec;
    const [names, images] = containerCells(jobSpec?.template?.spec?.containers);
    // Defaulting sets suspend to false, so an unset value prints False.
    const suspend = spec?.suspend ?? false;
    return [
      cronJob.metadata?.name ?? '',
      spec?.schedule ?? '',
      spec?.timeZone ?? NONE,
      suspend ? 'True' : 'False',
      (cronJob.status?.active ?? []).length,
      lastSchedule ? timeSince(lastSchedule, now) : NONE,
      age(cronJob, now),
      names,
      images,
      formatLabelSelector(jobSpec?.selector),
    ];
  },
};
