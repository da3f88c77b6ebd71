/** `kubectl get replicasets`: DESIRED, CURRENT, READY counts. */
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
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
import { age } from '../../printing/timestamps.js';

export const replicaSetTable: TableConvertor<ReplicaSet> = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Number of pods wanted.'),
    column('Current', 'integer', 'Number of pods that exist.'),
    column('Ready', 'integer', 'Number of pods that are ready.'),
    ageColumn(),
    wideColumn('Containers', 'string', CONTAINERS_DESCRIPTION),
    wideColumn('Images', 'string', IMAGES_DESCRIPTION),
    wideColumn('Selector', 'string', SELECTOR_DESCRIPTION),
  ],
  cells(rs, now) {
    const [names, images] = containerCells(rs.spec?.template?.spec?.containers);
    return [
      rs.metadata?.name ?? '',
      // Defaulting gives an unset spec.replicas the value 1.
      rs.spec?.replicas ?? 1,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      age(rs, now),
      names,
      images,
      formatLabelSelector(rs.spec?.selector),
    ];
  },
};
