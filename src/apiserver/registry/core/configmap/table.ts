/** `kubectl get configmaps`: DATA counts both data and binaryData keys. */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const configMapTable: TableConvertor<ConfigMap> = {
  columns: [nameColumn(), column('Data', 'string', 'Number of keys in data and binaryData.'), ageColumn()],
  cells(cm, now) {
    const keys = Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length;
    return [cm.metadata?.name ?? '', keys, age(cm, now)];
  },
};
