/** `kubectl get deployments`: READY as `ready/desired`, UP-TO-DATE, AVAILABLE; containers, images and selector when wide. */
import type { Deployment } from 'kubernetes-types/apps/v1.js';
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
import { labelSelectorText } from '../../printing/labels.js';
import { INVALID } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

export const deploymentTable: TableConvertor<Deployment> = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Ready pods out of the desired number.'),
    column('Up-to-date', 'string', 'Pods running the current pod template.'),
    column('Available', 'string', 'Pods available to serve.'),
    ageColumn(),
    wideColumn('Containers', 'string', CONTAINERS_DESCRIPTION),
    wideColumn('Images', 'string', IMAGES_DESCRIPTION),
    wideColumn('Selector', 'string', SELECTOR_DESCRIPTION),
  ],
  cells(deployment, now) {
    // Defaulting gives an unset spec.replicas the value 1.
    const desired = deployment.spec?.replicas ?? 1;
    const status = deployment.status;
    const [names, images] = containerCells(deployment.spec?.template?.spec?.containers);
    // Unlike most kinds, an empty selector prints as '' rather than <none>.
    const selector = labelSelectorText(deployment.spec?.selector);
    return [
      deployment.metadata?.name ?? '',
      `${status?.readyReplicas ?? 0}/${desired}`,
      status?.updatedReplicas ?? 0,
      status?.availableReplicas ?? 0,
      age(deployment, now),
      names,
      images,
      selector.ok ? selector.text : INVALID,
    ];
  },
};
