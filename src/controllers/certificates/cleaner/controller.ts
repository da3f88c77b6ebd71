/**
 * csrcleaner (upstream's cleaner.go): deletes CertificateSigningRequests
 * that have done their job, so that automatic requests do not pile up:
 * - approved and issued, 1 h after the Approved condition's lastUpdateTime;
 * - denied, 1 h after the Denied condition's lastUpdateTime;
 * - failed, 1 h after the Failed condition's lastUpdateTime;
 * - pending (no condition at all), 24 h after creation;
 * - approved and issued with a certificate past its NotAfter.
 * Upstream lists every CSR each hour; here each CSR is requeued for the
 * moment its next deadline passes (a condition with no lastUpdateTime has
 * no deadline, as upstream's zero time).
 */
import { X509Certificate } from 'node:crypto';
import type { Client } from '../../../client/rest/interface.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import { isNotFound } from '../../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../../context.js';
import { terminalError, type ReconcileResult } from '../../reconcile-loop.js';
import { startCertificateController } from '../certificate-controller.js';
import { isIssued, type CsrObject } from '../csr.js';

export const APPROVED_EXPIRATION_MS = 3600_000;
export const DENIED_EXPIRATION_MS = 3600_000;
export const PENDING_EXPIRATION_MS = 24 * 3600_000;
/** The longest single wait (node timers overflow past 2^31 ms); the CSR is then looked at again. */
export const MAX_REQUEUE_MS = 24 * 3600_000;

interface Deadline {
  readonly at: number;
  readonly why: string;
}

const timeOf = (value: string | undefined): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
};

/** The NotAfter of status.certificate (its first PEM block); throws when it is not a PEM certificate. */
function certificateNotAfter(csr: CsrObject): number {
  const pem = Buffer.from(csr.status?.certificate ?? '', 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('expected the certificate associated with the CSR to be PEM encoded');
  try {
    return Date.parse(new X509Certificate(pem).validTo);
  } catch (e: unknown) {
    throw new Error(`unable to parse certificate data: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** Every moment at which the CSR becomes deletable, with the reason (exported for tests). */
export function cleanupDeadlines(csr: CsrObject): Deadline[] {
  const conditions = csr.status?.conditions ?? [];
  const deadlines: Deadline[] = [];
  const approved = conditions.filter((c) => c.type === 'Approved');
  if (approved.length > 0 && isIssued(csr)) {
    deadlines.push({ at: certificateNotAfter(csr), why: 'the associated certificate is expired' });
    for (const c of approved) {
      const t = timeOf(c.lastUpdateTime);
      if (t !== undefined) deadlines.push({ at: t + APPROVED_EXPIRATION_MS, why: 'it is more than 1h0m0s old and approved' });
    }
  }
  for (const [type, word] of [['Denied', 'denied'], ['Failed', 'failed']] as const) {
    for (const c of conditions.filter((x) => x.type === type)) {
      const t = timeOf(c.lastUpdateTime);
      if (t !== undefined) deadlines.push({ at: t + DENIED_EXPIRATION_MS, why: `it is more than 1h0m0s old and ${word}` });
    }
  }
  if (conditions.length === 0) {
    const created = timeOf(csr.metadata.creationTimestamp ?? undefined);
    if (created !== undefined) deadlines.push({ at: created + PENDING_EXPIRATION_MS, why: 'it is more than 24h0m0s old and unhandled' });
  }
  return deadlines;
}

export interface CsrCleanerOptions {
  readonly client: Client;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}

/** The cleanup of one CSR: delete it when a deadline has passed, else ask to be looked at again at the next one. */
export function newCsrCleaner(options: CsrCleanerOptions): (csr: CsrObject) => Promise<ReconcileResult | void> {
  const csrs = options.client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
  const now = options.now ?? Date.now;
  return async (csr) => {
    const name = csr.metadata.name ?? '';
    let deadlines: Deadline[];
    try {
      deadlines = cleanupDeadlines(csr);
    } catch (e: unknown) {
      throw terminalError(`cannot clean CSR "${name}": ${e instanceof Error ? e.message : String(e)}`, e);
    }
    const t = now();
    const passed = deadlines.find((d) => d.at < t);
    if (passed !== undefined) {
      options.log?.(`Cleaning CSR "${name}" as ${passed.why}`);
      try {
        await csrs.delete(name, csr.metadata.uid !== undefined ? { preconditions: { uid: csr.metadata.uid } } : {});
      } catch (e: unknown) {
        if (isNotFound(e)) return;
        throw new Error(`unable to delete CSR "${name}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      return;
    }
    if (deadlines.length === 0) return;
    const next = Math.min(...deadlines.map((d) => d.at));
    return { requeueAfterMs: Math.min(next - t + 1, MAX_REQUEUE_MS) };
  };
}

export const csrCleanerController: ControllerDefinition = {
  name: 'csrcleaner',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const log = ctx.logger.child({ controller: 'csrcleaner' });
    const handle = newCsrCleaner({ client: ctx.client, log: (m) => log.info(m) });
    startCertificateController(ctx, { name: 'csrcleaner', workers: 1, handle: (csr) => handle(csr) });
  },
};
