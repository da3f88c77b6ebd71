/**
 * CertificateSigningRequests (certificates.k8s.io/v1), as upstream's
 * registry/certificates/certificates/strategy.go: cluster-scoped, immutable
 * after create except through two subresources with one job each:
 *
 * - the main resource: spec and status stay as they were (metadata only);
 * - /status (the signer): status changes, except the Approved and Denied
 *   conditions, which are kept as stored;
 * - /approval (the approver): only status.conditions changes.
 *
 * On create the status is cleared (no pre-approved requests); the requesting
 * user is written into the spec by the store (storage.ts), which knows who asks.
 * Conditions get lastUpdateTime and lastTransitionTime when they have none
 * (the transition time of an unchanged type and status is kept).
 */
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import {
  APPROVED,
  DENIED,
  validateCertificateSigningRequestApprovalUpdate,
  validateCertificateSigningRequestCreate,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
  type Csr,
} from '../../../../api/certificates/v1/validation.js';
import { formatTime, type KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { baseStrategy, type Strategy } from '../../generic/strategy.js';
import { certificateSigningRequestTable } from './table.js';

type CsrObject = KubeObject & CertificateSigningRequest;
const csr = (o: KubeObject): CsrObject => o as CsrObject;
const asCsr = (o: KubeObject): Csr => o as unknown as Csr;

/** Replace every field but metadata (and type meta) with the old object's, then apply `keep` to take some back. */
function keepOnly(object: KubeObject, old: KubeObject, keep: (next: CsrObject, previous: CsrObject) => void): void {
  const next = csr(object);
  const requested = structuredClone(next);
  for (const key of Object.keys(object)) if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') delete object[key];
  for (const [key, value] of Object.entries(old)) if (key !== 'metadata') (object as Record<string, unknown>)[key] = structuredClone(value);
  keep(next, requested);
}

export const certificateSigningRequestStrategy: Strategy = {
  ...baseStrategy,
  generation: false,
  prepareForCreate: (o) => {
    csr(o).status = {};
  },
  prepareForUpdate: (o, old) => keepOnly(o, old, () => {}),
  validate: (o) => validateCertificateSigningRequestCreate(asCsr(o)),
  validateUpdate: (o, old) => validateCertificateSigningRequestUpdate(asCsr(o), asCsr(old)),
  selectableFields: { 'spec.signerName': (o) => csr(o).spec?.signerName ?? '' },
  table: certificateSigningRequestTable as unknown as TableConvertor<KubeObject>,
};

/** PUT …/status: the signer's write (certificate, Failed and other conditions); Approved and Denied stay as stored. */
export const certificateSigningRequestStatusStrategy: Strategy = {
  ...certificateSigningRequestStrategy,
  prepareForUpdate: (o, old) => {
    const previous = csr(old);
    keepOnly(o, old, (next, requested) => {
      next.status = requested.status ?? {};
      const conditions = requested.status?.conditions;
      if (conditions !== undefined) {
        for (const type of [APPROVED, DENIED]) preserveConditionInstances(conditions, previous.status?.conditions ?? [], type);
        populateConditionTimestamps(conditions, previous.status?.conditions ?? []);
      }
    });
  },
  validateUpdate: (o, old) => validateCertificateSigningRequestStatusUpdate(asCsr(o), asCsr(old)),
};

/** PUT …/approval: the approver's write; only status.conditions changes. */
export const certificateSigningRequestApprovalStrategy: Strategy = {
  ...certificateSigningRequestStrategy,
  prepareForUpdate: (o, old) => {
    const previous = csr(old);
    keepOnly(o, old, (next, requested) => {
      const conditions = requested.status?.conditions;
      if (conditions !== undefined) populateConditionTimestamps(conditions, previous.status?.conditions ?? []);
      const status = { ...(previous.status ?? {}) };
      if (conditions === undefined) delete status.conditions;
      else status.conditions = conditions;
      next.status = status;
    });
  },
  validateUpdate: (o, old) => validateCertificateSigningRequestApprovalUpdate(asCsr(o), asCsr(old)),
};

/** Keep the stored instances of one condition type when the write has as many of them (else validation refuses it). */
function preserveConditionInstances(next: CertificateSigningRequestCondition[], old: readonly CertificateSigningRequestCondition[], type: string): void {
  const oldIndices = old.flatMap((c, i) => (c.type === type ? [i] : []));
  const newIndices = next.flatMap((c, i) => (c.type === type ? [i] : []));
  if (oldIndices.length !== newIndices.length) return;
  newIndices.forEach((n, k) => {
    next[n] = structuredClone(old[oldIndices[k]!]!);
  });
}

/** lastUpdateTime now when missing; lastTransitionTime kept from a stored condition of the same type and status, else now. */
export function populateConditionTimestamps(next: CertificateSigningRequestCondition[], old: readonly CertificateSigningRequestCondition[], now: Date = new Date()): void {
  const stamp = formatTime(now);
  for (const c of next) {
    if (c.lastUpdateTime === undefined || c.lastUpdateTime === '') c.lastUpdateTime = stamp;
    if (c.lastTransitionTime === undefined || c.lastTransitionTime === '') {
      const same = old.find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime !== undefined && o.lastTransitionTime !== '');
      c.lastTransitionTime = same?.lastTransitionTime ?? stamp;
    }
  }
}
