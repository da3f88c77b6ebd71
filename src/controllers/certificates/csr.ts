/**
 * What the certificate controllers share about a CertificateSigningRequest:
 * the signer names of upstream's built-in signers, reading spec.request (a
 * PEM "CERTIFICATE REQUEST" in base64) into the facts the approvers and
 * signers check, and the conditions (Approved, Denied, Failed) of its status.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import type { KubeObject } from '../../machinery/meta.js';

x509.cryptoProvider.set(webcrypto);

export type CsrObject = CertificateSigningRequest & KubeObject;

/** Upstream's built-in signer names (k8s.io/api/certificates/v1). */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

/** The facts of a parsed certificate request, as Go's x509.CertificateRequest exposes them. */
export interface ParsedCertificateRequest {
  readonly request: x509.Pkcs10CertificateRequest;
  /** The last CN of the subject (Go keeps the last one), '' when none. */
  readonly commonName: string;
  /** Every O of the subject, in order. */
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)\r?\n-----END \1-----/;

/**
 * spec.request, parsed as upstream's ParseCSR does: the first PEM block must
 * be a CERTIFICATE REQUEST. Throws on anything else (the message names why).
 */
export function parseCertificateRequest(requestBase64: string | undefined): ParsedCertificateRequest {
  const pem = Buffer.from(requestBase64 ?? '', 'base64').toString('utf8');
  const block = PEM_BLOCK.exec(pem);
  if (block === null || block[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(Buffer.from(block[2]!.replace(/\s+/g, ''), 'base64'));
  } catch (e: unknown) {
    throw new Error(`asn1: malformed certificate request: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const names = request.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension)?.names.items ?? [];
  const of = (type: string): string[] => names.filter((n) => n.type === type).map((n) => n.value);
  const cns = request.subjectName.getField('CN');
  return {
    request,
    commonName: cns[cns.length - 1] ?? '',
    organizations: request.subjectName.getField('O'),
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
  };
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

/** Go's fmt %v of a sorted string set: `[a b c]`. */
export const formatSet = (values: Iterable<string>): string => `[${[...new Set(values)].sort().join(' ')}]`;

/** Whether two string collections hold the same set. */
export function sameSet(a: Iterable<string>, b: Iterable<string>): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}
