/**
 * csrapproving (upstream's sarapprove.go): approves kubelet client
 * certificate requests (signer kubernetes.io/kube-apiserver-client-kubelet)
 * when the requester may ask for one. A pending request (no Approved or
 * Denied condition, no certificate) whose x509 request is a node client
 * certificate (CN system:node:<name>, O exactly [system:nodes], no SANs,
 * upstream's usages) is put to a SubjectAccessReview of the requester's
 * user, groups, extra and uid from the CSR's spec: `create` on
 * certificatesigningrequests/selfnodeclient when the requester is the node
 * of the CN (a renewal), then certificatesigningrequests/nodeclient. The
 * first allowed one appends Approved=True, reason AutoApproved, through the
 * /approval subresource. A recognised request no review allows is retried
 * with backoff (RBAC may be granted later); anything else is left alone:
 * this controller never denies.
 */
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import type { Client } from '../../../client/rest/interface.js';
import { builtinResource, CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { ControllerContext, ControllerDefinition } from '../../context.js';
import { startCertificateController } from '../certificate-controller.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, pendingRequest, withCondition, type CsrObject, type ParsedCertificateRequest } from '../csr.js';
import { kubeletClientProblem } from '../node-csr-checks.js';

export const SUBJECT_ACCESS_REVIEWS = builtinResource('authorization.k8s.io', 'v1', 'subjectaccessreviews');

type SubjectAccessReviewObject = SubjectAccessReview & KubeObject;

interface Recognizer {
  readonly subresource: 'selfnodeclient' | 'nodeclient';
  readonly recognize: (csr: CsrObject, req: ParsedCertificateRequest) => boolean;
  readonly message: string;
}

const isNodeClientCert = (csr: CsrObject, req: ParsedCertificateRequest): boolean =>
  csr.spec.signerName === KUBE_APISERVER_CLIENT_KUBELET_SIGNER && kubeletClientProblem(req, csr.spec.usages ?? []) === undefined;

const RECOGNIZERS: readonly Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    recognize: (csr, req) => csr.spec.username === req.commonName && isNodeClientCert(csr, req),
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  { subresource: 'nodeclient', recognize: isNodeClientCert, message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
];

/** Whether the CSR's requester may `create` certificatesigningrequests/<subresource>, asked of the API server. */
async function requesterMay(client: Client, csr: CsrObject, subresource: string): Promise<boolean> {
  const review: SubjectAccessReviewObject = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      ...(csr.spec.username !== undefined ? { user: csr.spec.username } : {}),
      ...(csr.spec.uid !== undefined ? { uid: csr.spec.uid } : {}),
      ...(csr.spec.groups !== undefined ? { groups: csr.spec.groups } : {}),
      ...(csr.spec.extra !== undefined ? { extra: csr.spec.extra } : {}),
      resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
    },
  };
  const answer = await client.resource<SubjectAccessReviewObject>(SUBJECT_ACCESS_REVIEWS).create(review);
  return answer.status?.allowed === true;
}

/** The decision for one CSR (exported for tests). */
export function newSarApprover(client: Client): (csr: CsrObject) => Promise<void> {
  const csrs = client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
  return async (csr) => {
    const req = pendingRequest(csr);
    if (req === undefined) return;
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, req)) continue;
      tried.push(r.subresource);
      if (!(await requesterMay(client, csr, r.subresource))) continue;
      const approvedCsr = withCondition(csr, { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message });
      try {
        await csrs.updateSubresource(csr.metadata.name ?? '', 'approval', approvedCsr);
      } catch (e: unknown) {
        throw new Error(`error updating approval for csr: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      return;
    }
    // As upstream's IgnorableError: retried with backoff, since the requester may be granted the permission later.
    if (tried.length > 0) throw new Error(`recognized csr "${csr.metadata.name ?? ''}" as [${tried.join(' ')}] but subject access review was not approved`);
  };
}

export const csrApprovingController: ControllerDefinition = {
  name: 'csrapproving',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const handle = newSarApprover(ctx.client);
    startCertificateController(ctx, { name: 'csrapproving', handle: (csr) => handle(csr) });
  },
};
