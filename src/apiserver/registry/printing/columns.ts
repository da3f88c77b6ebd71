/** Building column definitions: NAME and AGE are shared by nearly every kind. */
import type { TableColumnDefinition } from '../../../machinery/table.js';

type ColumnType = TableColumnDefinition['type'];

/** A column; `priority: 1` hides it unless the user asks for `-o wide`. */
export function column(
  name: string,
  type: ColumnType,
  description: string,
  options: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** A wide-only column (priority 1). */
export function wideColumn(name: string, type: ColumnType, description: string): TableColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

/** The NAME column (format `name`). */
export function nameColumn(priority = 0): TableColumnDefinition {
  return column('Name', 'string', 'Name of the object, unique within its namespace or the cluster.', {
    format: 'name',
    priority,
  });
}

/** The AGE column: time since creation, as text (`5m10s`). */
export function ageColumn(): TableColumnDefinition {
  return column('Age', 'string', 'Time since the object was created.');
}

/** Descriptions of the CONTAINERS / IMAGES columns that workloads share. */
export const CONTAINERS_DESCRIPTION = 'Names of the containers in the pod template.';
export const IMAGES_DESCRIPTION = 'Images of the containers in the pod template.';
export const SELECTOR_DESCRIPTION = 'Label selector for the pods this object manages.';
