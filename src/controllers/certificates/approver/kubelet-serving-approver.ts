/**
 * kubelet-serving-approver: a k8ts addition, not an upstream controller
 * (upstream leaves kubernetes.io/kubelet-serving requests to the cluster
 * operator or a third-party approver). It approves a pending kubelet serving
 * certificate request only when a node asks for its own:
 * - the requester is system:node:<name> in group system:nodes;
 * - the subject is CN=system:node:<name> (the same name) and O exactly [system:nodes];
 * - usages ⊆ {digital signature, key encipherment, server auth}, with server auth;
 * - DNS SANs ⊆ {<name>}, at least one DNS or IP SAN, no email or URI SANs
 *   (IP SANs are allowed: a node already reports its own addresses).
 * Approved=True, reason AutoApproved, through /approval. Anything else is
 * left alone (never denied), so that `k8ts agent` gets a serving certificate
 * from the cluster CA, which the API server checks (--kubelet-certificate-authority).
 */
import type { Client } from '../../../client/rest/interface.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import type { ControllerContext, ControllerDefinition } from '../../context.js';
import { startCertificateController } from '../certificate-controller.js';
import { KUBELET_SERVING_SIGNER, NODE_USER_PREFIX, NODES_GROUP, pendingRequest, withCondition, type CsrObject, type ParsedCertificateRequest } from '../csr.js';

export const KUBELET_SERVING_APPROVAL_MESSAGE = 'Auto approving kubelet serving certificate of the requesting node.';

const ALLOWED_USAGES = new Set(['digital signature', 'key encipherment', 'server auth']);

/** Why a kubelet-serving CSR is not a node's request for its own serving certificate; undefined when it is. */
export function selfServingProblem(csr: CsrObject, req: ParsedCertificateRequest): string | undefined {
  const user = csr.spec.username ?? '';
  if (!user.startsWith(NODE_USER_PREFIX) || user.length === NODE_USER_PREFIX.length) return 'the requester is not a node';
  if (!(csr.spec.groups ?? []).includes(NODES_GROUP)) return `the requester is not in group ${NODES_GROUP}`;
  if (req.commonName !== user) return 'the subject common name is not the requesting node';
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return 'subject organization is not system:nodes';
  const usages = csr.spec.usages ?? [];
  if (!usages.includes('server auth') || usages.some((u) => !ALLOWED_USAGES.has(u))) return 'usages are not a subset of [digital signature key encipherment server auth] with server auth';
  const nodeName = user.slice(NODE_USER_PREFIX.length);
  if (req.dnsNames.some((n) => n !== nodeName)) return 'a DNS subjectAltName is not the node\'s name';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  return undefined;
}

/** The decision for one CSR (exported for tests). */
export function newKubeletServingApprover(client: Client): (csr: CsrObject) => Promise<void> {
  const csrs = client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
  return async (csr) => {
    if (csr.spec.signerName !== KUBELET_SERVING_SIGNER) return;
    const req = pendingRequest(csr);
    if (req === undefined) return;
    if (selfServingProblem(csr, req) !== undefined) return;
    const approvedCsr = withCondition(csr, { type: 'Approved', status: 'True', reason: 'AutoApproved', message: KUBELET_SERVING_APPROVAL_MESSAGE });
    try {
      await csrs.updateSubresource(csr.metadata.name ?? '', 'approval', approvedCsr);
    } catch (e: unknown) {
      throw new Error(`error updating approval for csr: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
}

export const kubeletServingApproverController: ControllerDefinition = {
  name: 'kubelet-serving-approver',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const handle = newKubeletServingApprover(ctx.client);
    startCertificateController(ctx, { name: 'kubelet-serving-approver', handle: (csr) => handle(csr) });
  },
};
