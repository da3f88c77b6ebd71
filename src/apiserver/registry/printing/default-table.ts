/**
 * The table of kinds that upstream prints without a dedicated printer
 * (roles, cluster roles, limit ranges, …): NAME and CREATED AT, the latter a
 * `date` column holding the RFC 3339 creation time in UTC.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { TableConvertor } from '../../../machinery/table.js';
import { column, nameColumn } from './columns.js';
import { parseTime } from './timestamps.js';

/** Go's zero time, printed when an object has no creationTimestamp. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** RFC 3339 in UTC with second precision, as Go's time.RFC3339 layout prints it. */
export function rfc3339(timestamp: string | undefined): string {
  const ms = parseTime(timestamp);
  if (ms === undefined) return ZERO_TIME;
  const seconds = Math.floor(ms / 1000) * 1000;
  return new Date(seconds).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const defaultTable: TableConvertor<{ metadata?: ObjectMeta }> = {
  columns: [nameColumn(), column('Created At', 'date', 'Time the object was created, in UTC.')],
  cells(object) {
    return [object.metadata?.name ?? '', rfc3339(object.metadata?.creationTimestamp)];
  },
};
