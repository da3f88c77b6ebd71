/** `kubectl get podtemplates`: containers, images and the template's pod labels. */
import type { PodTemplate } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { CONTAINERS_DESCRIPTION, IMAGES_DESCRIPTION, column, nameColumn } from '../../printing/columns.js';
import { containerCells } from '../../printing/containers.js';
import { formatLabels } from '../../printing/labels.js';

export const podTemplateTable: TableConvertor<PodTemplate> = {
  columns: [
    nameColumn(),
    column('Containers', 'string', CONTAINERS_DESCRIPTION),
    column('Images', 'string', IMAGES_DESCRIPTION),
    column('Pod Labels', 'string', 'Labels of the pods made from the template.'),
  ],
  cells(pt) {
    const [names, images] = containerCells(pt.template?.spec?.containers);
    return [pt.metadata?.name ?? '', names, images, formatLabels(pt.template?.metadata?.labels)];
  },
};
