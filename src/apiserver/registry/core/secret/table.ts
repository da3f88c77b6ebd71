/** `kubectl get secrets`: TYPE and the number of DATA keys. */
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const secretTable: TableConvertor<Secret> = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'Type of the secret, such as Opaque.'),
    column('Data', 'string', 'Number of keys in data.'),
    ageColumn(),
  ],
  cells(secret, now) {
    // Defaulting makes an untyped secret Opaque.
    const type = secret.type || 'Opaque';
    return [secret.metadata?.name ?? '', type, Object.keys(secret.data ?? {}).length, age(secret, now)];
  },
};
