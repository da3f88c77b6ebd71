/** `kubectl get priorityclasses`: VALUE, GLOBAL-DEFAULT, and the PREEMPTIONPOLICY column. */
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const priorityClassTable: TableConvertor<PriorityClass> = {
  columns: [
    nameColumn(),
    column('Value', 'integer', 'Priority of pods that use the class.'),
    column('Global-Default', 'boolean', 'Whether pods without a class get this one.'),
    ageColumn(),
    column('PreemptionPolicy', 'string', 'Whether pods of the class may preempt lower-priority pods.'),
  ],
  cells(pc, now) {
    // Defaulting sets an unset preemptionPolicy to PreemptLowerPriority.
    const policy = pc.preemptionPolicy ?? 'PreemptLowerPriority';
    return [pc.metadata?.name ?? '', pc.value ?? 0, pc.globalDefault ?? false, age(pc, now), policy];
  },
};
