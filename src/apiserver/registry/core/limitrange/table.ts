/** `kubectl get limitranges`: upstream has no printer for them, so NAME and CREATED AT. */
import type { LimitRange } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { defaultTable } from '../../printing/default-table.js';

export const limitRangeTable: TableConvertor<LimitRange> = defaultTable;
