/** `kubectl get daemonsets`: scheduling counts from status and the pods' NODE SELECTOR. */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
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
import { formatLabelSelector, formatLabels } from '../../printing/labels.js';
import { age } from '../../printing/timestamps.js';

export const daemonSetTable: TableConvertor<DaemonSet> = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Number of nodes that should run the daemon pod.'),
    column('Current', 'integer', 'Number of nodes running at least one daemon pod.'),
    column('Ready', 'integer', 'Number of nodes whose daemon pod is ready.'),
    column('Up-to-date', 'integer', 'Number of nodes running the current pod template.'),
    column('Available', 'integer', 'Number of nodes whose daemon pod is available.'),
    column('Node Selector', 'string', 'Node labels the daemon pods are limited to.'),
    ageColumn(),
    wideColumn('Containers', 'string', CONTAINERS_DESCRIPTION),
    wideColumn('Images', 'string', IMAGES_DESCRIPTION),
    wideColumn('Selector', 'string', SELECTOR_DESCRIPTION),
  ],
  cells(ds, now) {
    const status = ds.status;
    const [names, images] = containerCells(ds.spec?.template?.spec?.containers);
    return [
      ds.metadata?.name ?? '',
      status?.desiredNumberScheduled ?? 0,
      status?.currentNumberScheduled ?? 0,
      status?.numberReady ?? 0,
      status?.updatedNumberScheduled ?? 0,
      status?.numberAvailable ?? 0,
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      age(ds, now),
      names,
      images,
      formatLabelSelector(ds.spec?.selector),
    ];
  },
};
