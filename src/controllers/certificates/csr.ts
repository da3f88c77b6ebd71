/**
 * What the certificate controllers share about a CertificateSigningRequest:
 * the signer names of upstream's built-in signers and reading spec.request
 * (both from the API's certificates/v1 package, which the API server's
 * validation uses too), and the conditions (Approved, Denied, Failed) of its
 * status.
 */
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import { parseCertificateRequest as parsePemRequest, type ParsedCertificateRequest } from '../../api/certificates/v1/certificate-request.js';
import type { KubeObject } from '../../machinery/meta.js';
import { terminalError } from '../reconcile-loop.js';

export type { ParsedCertificateRequest } from '../../api/certificates/v1/certificate-request.js';
export { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from '../../api/certificates/v1/kubelet-csr.js';

export type CsrObject = CertificateSigningRequest & KubeObject;

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

/**
 * spec.request (base64 of PEM bytes), parsed as upstream's ParseCSR does
 * (the API's parser): the first PEM block must be a CERTIFICATE REQUEST.
 * Throws with upstream's message otherwise.
 */
export function parseCertificateRequest(requestBase64: string | undefined): ParsedCertificateRequest {
  return parsePemRequest(Buffer.from(requestBase64 ?? '', 'base64').toString('latin1'));
}

/**
 * The parsed request of a CSR an approver still has to decide on; undefined
 * once it is issued, approved or denied. A request that does not parse is a
 * terminal error (retrying cannot help).
 */
export function pendingRequest(csr: CsrObject): ParsedCertificateRequest | undefined {
  if (isIssued(csr)) return undefined;
  const { approved, denied } = approvalState(csr);
  if (approved || denied) return undefined;
  try {
    return parseCertificateRequest(csr.spec.request);
  } catch (e: unknown) {
    throw terminalError(`unable to parse csr "${csr.metadata.name ?? ''}": ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

const conditions = (csr: CsrObject): readonly CertificateSigningRequestCondition[] => csr.status?.conditions ?? [];

/** Upstream's GetCertApprovalCondition: whether an Approved or a Denied condition is present (any status). */
export function approvalState(csr: CsrObject): { readonly approved: boolean; readonly denied: boolean } {
  return { approved: conditions(csr).some((c) => c.type === 'Approved'), denied: conditions(csr).some((c) => c.type === 'Denied') };
}

/** Upstream's IsCertificateRequestApproved: approved and not denied. */
export function isApproved(csr: CsrObject): boolean {
  const { approved, denied } = approvalState(csr);
  return approved && !denied;
}

/** Upstream's HasTrueCondition. */
export const hasTrueCondition = (csr: CsrObject, type: string): boolean => conditions(csr).some((c) => c.type === type && c.status === 'True');

/** Whether a certificate was issued (status.certificate is set). */
export const isIssued = (csr: CsrObject): boolean => (csr.status?.certificate ?? '') !== '';

/** A copy of the CSR with one more condition. */
export function withCondition(csr: CsrObject, condition: CertificateSigningRequestCondition): CsrObject {
  return { ...csr, status: { ...csr.status, conditions: [...conditions(csr), condition] } };
}
