/**
 * `kubectl get events`: LAST SEEN, TYPE, REASON, OBJECT (`pod/web-1`),
 * MESSAGE, and in wide output SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME.
 * Handles both old-style events (first/last timestamps, count) and new-style
 * ones (eventTime, series). It reads the internal form, so core/v1 and
 * events.k8s.io/v1 print the same table, as upstream's one printer does.
 */
import type { InternalEvent as Event } from '../../../../api/events/internal.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { column, nameColumn, wideColumn } from '../../printing/columns.js';
import { parseTime, timeSince } from '../../printing/timestamps.js';

/** `component, host`; falls back to reportingController / reportingInstance when source is empty. */
function formatSource(event: Event): string {
  const component = event.source?.component || event.reportingController || '';
  const instance = event.source?.host || event.reportingInstance || '';
  return instance === '' ? component : `${component}, ${instance}`;
}

/** `kind/name` in lower-case kind, or just the kind for an unnamed object. */
function target(event: Event): string {
  const kind = (event.involvedObject?.kind ?? '').toLowerCase();
  const name = event.involvedObject?.name ?? '';
  return name === '' ? kind : `${kind}/${name}`;
}

export const eventTable: TableConvertor<Event> = {
  columns: [
    column('Last Seen', 'string', 'Time since the event was last observed.'),
    column('Type', 'string', 'Type of the event: Normal or Warning.'),
    column('Reason', 'string', 'Short machine-readable reason for the event.'),
    column('Object', 'string', 'Object the event is about, as kind/name.'),
    wideColumn('Subobject', 'string', 'Part of the object the event is about, such as a container.'),
    wideColumn('Source', 'string', 'Component (and host) that reported the event.'),
    column('Message', 'string', 'Human-readable description of the event.'),
    wideColumn('First Seen', 'string', 'Time since the event was first observed.'),
    wideColumn('Count', 'string', 'Number of times the event has occurred.'),
    nameColumn(1),
  ],
  cells(event, now) {
    let firstSeen = timeSince(event.firstTimestamp, now);
    if (parseTime(event.firstTimestamp) === undefined) firstSeen = timeSince(event.eventTime, now);
    let lastSeen = timeSince(event.lastTimestamp, now);
    if (parseTime(event.lastTimestamp) === undefined) lastSeen = firstSeen;
    let count = event.count ?? 0;
    if (event.series) {
      lastSeen = timeSince(event.series.lastObservedTime, now);
      count = event.series.count ?? 0;
    } else if (count === 0) {
      // New-style singleton events carry no count.
      count = 1;
    }
    return [
      lastSeen,
      event.type ?? '',
      event.reason ?? '',
      target(event),
      event.involvedObject?.fieldPath ?? '',
      formatSource(event),
      (event.message ?? '').trim(),
      firstSeen,
      count,
      event.metadata?.name ?? '',
    ];
  },
};
