/**
 * csrsigning (upstream's signer.go, one loop for its three kubernetes.io
 * signers): issues certificates from the cluster CA
 * (--cluster-signing-cert-file / --cluster-signing-key-file) for approved,
 * not failed, not yet issued requests of
 * - kubernetes.io/kube-apiserver-client-kubelet (a kubelet client certificate),
 * - kubernetes.io/kubelet-serving (a kubelet serving certificate),
 * - kubernetes.io/kube-apiserver-client (any client certificate: usages only).
 * A request the signer's checks refuse gets Failed=True, reason
 * SignerValidationFailure, with upstream's message, instead of a
 * certificate. The certificate (PEM, the leaf only) lasts
 * --cluster-signing-duration, or spec.expirationSeconds when shorter, and is
 * written through /status. Without both files the controller stays idle and
 * says why; the CA is read once at start (upstream reloads it on change).
 */
import type { Client } from '../../../client/rest/interface.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import { formatTime } from '../../../machinery/meta.js';
import type { ControllerContext, ControllerDefinition } from '../../context.js';
import { terminalError } from '../../reconcile-loop.js';
import { startCertificateController } from '../certificate-controller.js';
import {
  hasTrueCondition,
  isApproved,
  isIssued,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  parseCertificateRequest,
  withCondition,
  type CsrObject,
  type ParsedCertificateRequest,
} from '../csr.js';
import { apiServerClientUsagesProblem, kubeletClientProblem, kubeletServingProblem } from '../node-csr-checks.js';
import { certificateTtlMs, loadSigningAuthority, signCertificateRequest, type SigningAuthority } from './certificate-authority.js';

/** Each signer's check of a request (upstream's isRequestForSignerFunc): the problem, or undefined to sign. */
const SIGNER_CHECKS: Readonly<Record<string, (req: ParsedCertificateRequest, usages: readonly string[]) => string | undefined>> = {
  [KUBE_APISERVER_CLIENT_KUBELET_SIGNER]: kubeletClientProblem,
  [KUBELET_SERVING_SIGNER]: kubeletServingProblem,
  [KUBE_APISERVER_CLIENT_SIGNER]: (_req, usages) => apiServerClientUsagesProblem(usages),
};

export interface CsrSignerOptions {
  readonly client: Client;
  readonly authority: SigningAuthority;
  /** --cluster-signing-duration. */
  readonly signingDurationMs: number;
  readonly now?: () => Date;
}

/** The signing of one CSR (exported for tests). */
export function newCsrSigner(options: CsrSignerOptions): (csr: CsrObject) => Promise<void> {
  const csrs = options.client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
  const now = options.now ?? (() => new Date());
  return async (csr) => {
    if (!isApproved(csr) || hasTrueCondition(csr, 'Failed') || isIssued(csr)) return;
    const check = SIGNER_CHECKS[csr.spec.signerName];
    if (check === undefined) return;
    let req: ParsedCertificateRequest;
    try {
      req = parseCertificateRequest(csr.spec.request);
    } catch (e: unknown) {
      throw terminalError(`unable to parse csr "${csr.metadata.name ?? ''}": ${e instanceof Error ? e.message : String(e)}`, e);
    }
    const usages = csr.spec.usages ?? [];
    const problem = check(req, usages);
    if (problem !== undefined) {
      const failed = withCondition(csr, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: formatTime(now()) });
      try {
        await csrs.updateStatus(failed);
      } catch (e: unknown) {
        throw new Error(`error adding failure condition for csr: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      return;
    }
    let pem: string;
    try {
      pem = await signCertificateRequest(options.authority, req, {
        usages,
        ttlMs: certificateTtlMs(options.signingDurationMs, csr.spec.expirationSeconds),
        now: now(),
      });
    } catch (e: unknown) {
      throw new Error(`error auto signing csr: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const issued: CsrObject = { ...csr, status: { ...csr.status, certificate: Buffer.from(pem, 'utf8').toString('base64') } };
    try {
      await csrs.updateStatus(issued);
    } catch (e: unknown) {
      throw new Error(`error updating signature for csr: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
}

export const csrSigningController: ControllerDefinition = {
  name: 'csrsigning',
  enabledByDefault: true,
  async start(ctx: ControllerContext): Promise<void> {
    const certFile = ctx.options.clusterSigningCertFile ?? '';
    const keyFile = ctx.options.clusterSigningKeyFile ?? '';
    if (certFile === '' || keyFile === '') {
      const missing = [certFile === '' ? '--cluster-signing-cert-file' : '', keyFile === '' ? '--cluster-signing-key-file' : ''].filter((f) => f !== '').join(' and ');
      ctx.logger.info(`Skipping CSR signer controller because no csr cert/key was specified (${missing} not given): no CertificateSigningRequest will be issued`);
      return;
    }
    const authority = await loadSigningAuthority(certFile, keyFile);
    const handle = newCsrSigner({ client: ctx.client, authority, signingDurationMs: ctx.options.clusterSigningDurationMs });
    ctx.logger.info(`starting csrsigning with the CA of ${certFile}`);
    startCertificateController(ctx, { name: 'csrsigning', handle: (csr) => handle(csr) });
  },
};
