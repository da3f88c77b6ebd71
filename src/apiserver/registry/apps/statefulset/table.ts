/** `kubectl get statefulsets`: READY as `ready/desired`; containers and images when wide. */
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { CONTAINERS_DESCRIPTION, IMAGES_DESCRIPTION, ageColumn, column, nameColumn, wideColumn } from '../../printing/columns.js';
import { containerCells } from '../../printing/containers.js';
import { age } from '../../printing/timestamps.js';

export const statefulSetTable: TableConvertor<StatefulSet> = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Ready pods out of the desired number.'),
    ageColumn(),
    wideColumn('Containers', 'string', CONTAINERS_DESCRIPTION),
    wideColumn('Images', 'string', IMAGES_DESCRIPTION),
  ],
  cells(sts, now) {
    // Defaulting gives an unset spec.replicas the value 1.
    const desired = sts.spec?.replicas ?? 1;
    const [names, images] = containerCells(sts.spec?.template?.spec?.containers);
    return [sts.metadata?.name ?? '', `${sts.status?.readyReplicas ?? 0}/${desired}`, age(sts, now), names, images];
  },
};
