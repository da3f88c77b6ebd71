/**
 * The API server's audit log (<data-dir>/logs/audit.log under `k8ts server`,
 * one audit.k8s.io/v1 Event per line) read back as the trail of a journey:
 * who wrote what, in which order. The journey test checks the order of the
 * writes that make an app run; watchEstablished tells when a kubectl watch
 * has really started (its ResponseStarted line), so that nothing the test
 * does afterwards can be missed by it.
 */
import { readFile } from 'node:fs/promises';

export interface AuditEvent {
  readonly auditID: string;
  readonly stage: string;
  readonly verb: string;
  readonly requestURI: string;
  readonly userAgent?: string;
  readonly user: { readonly username: string };
  readonly objectRef?: { readonly resource?: string; readonly namespace?: string; readonly name?: string; readonly subresource?: string; readonly apiGroup?: string };
  readonly responseStatus?: { readonly code?: number };
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
}

/** A position in the audit log: read only what was written after it. */
export interface AuditCursor {
  readonly path: string;
  readonly offset: number;
}

export async function auditCursor(path: string): Promise<AuditCursor> {
  try {
    return { path, offset: (await readFile(path)).length };
  } catch {
    return { path, offset: 0 };
  }
}

/** Every complete line after the cursor, parsed. */
export async function auditEventsSince(cursor: AuditCursor): Promise<AuditEvent[]> {
  const bytes = await readFile(cursor.path);
  const text = bytes.subarray(cursor.offset).toString('utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

/** Writes that completed successfully (2xx), in the order the API server received them. */
export function completedWrites(events: readonly AuditEvent[]): AuditEvent[] {
  const writes = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
  return events
    .filter((e) => e.stage === 'ResponseComplete' && writes.has(e.verb) && (e.responseStatus?.code ?? 0) >= 200 && (e.responseStatus?.code ?? 0) < 300)
    .sort((a, b) => receivedMicros(a) - receivedMicros(b));
}

/** The instant an event was received, in microseconds since the epoch (Date.parse would keep only milliseconds). */
export function receivedMicros(e: AuditEvent): number {
  return Math.floor(Date.parse(e.requestReceivedTimestamp) / 1000) * 1_000_000 + Number(/\.(\d+)Z$/.exec(e.requestReceivedTimestamp)?.[1]?.padEnd(6, '0').slice(0, 6) ?? '0');
}

/**
 * Resolve once the audit log after `cursor` holds `count` started watches of
 * `resource` by kubectl (stage ResponseStarted): kubectl lists, then watches
 * from the list's resourceVersion, so every change after this point reaches it.
 */
export async function watchesEstablished(cursor: AuditCursor, resource: string, count: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const started = (await auditEventsSince(cursor)).filter(
      (e) => e.verb === 'watch' && e.stage === 'ResponseStarted' && e.objectRef?.resource === resource && (e.userAgent ?? '').startsWith('kubectl'),
    );
    if (started.length >= count) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} kubectl watches of ${resource} in ${cursor.path} (saw ${started.length})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
