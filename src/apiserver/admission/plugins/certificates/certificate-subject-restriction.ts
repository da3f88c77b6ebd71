/**
 * CertificateSubjectRestriction (on by default, as upstream): a request for
 * the kubernetes.io/kube-apiserver-client signer may not ask for the group
 * system:masters (organization), which would make its holder a cluster admin
 * whatever RBAC says.
 */
import { CertificateRequestError, parseCertificateRequest } from '../../../../api/certificates/v1/certificate-request.js';
import { KUBE_APISERVER_CLIENT_SIGNER } from '../../../../api/certificates/v1/kubelet-csr.js';
import { bytesField } from '../../../../api/certificates/v1/validation.js';
import type { AdmissionAttributes, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { admissionForbidden, isCsrRequest, signerNameOf } from './signer-authorization.js';

export function newCertificateSubjectRestriction(): ValidatingAdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    handles: (operation) => operation === 'CREATE',
    validate(a: AdmissionAttributes) {
      if (!isCsrRequest(a, '')) return;
      if (a.object === undefined) throw admissionForbidden(a, 'expected type CertificateSigningRequest, got: <nil>');
      if (signerNameOf(a.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
      const request = (a.object.spec as { request?: string } | undefined)?.request;
      let organizations: readonly string[];
      try {
        organizations = parseCertificateRequest(bytesField(request)).organizations;
      } catch (e: unknown) {
        throw admissionForbidden(a, `failed to parse CSR: ${e instanceof CertificateRequestError ? e.message : String(e)}`);
      }
      if (organizations.includes('system:masters')) {
        throw admissionForbidden(a, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
      }
    },
  };
}
