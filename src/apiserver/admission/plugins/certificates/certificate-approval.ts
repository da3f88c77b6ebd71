/**
 * CertificateApproval (on by default, as upstream): a write of
 * certificatesigningrequests/approval needs verb `approve` on the signer
 * named by the stored request (so that changing the signer name on the way
 * cannot help), else 403 "user not permitted to approve requests with
 * signerName …".
 */
import { goQuote } from '../../../../machinery/validation/go-text.js';
import type { AdmissionAttributes, AdmissionDependencies, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { admissionForbidden, isAuthorizedForSignerName, isCsrRequest, requireAuthorizer, signerNameOf } from './signer-authorization.js';

export function newCertificateApproval(deps: AdmissionDependencies): ValidatingAdmissionPlugin {
  const authorizer = requireAuthorizer('CertificateApproval', deps.authorizer);
  return {
    name: 'CertificateApproval',
    handles: (operation) => operation === 'UPDATE',
    async validate(a: AdmissionAttributes) {
      if (!isCsrRequest(a, 'approval')) return;
      if (a.oldObject === undefined) throw admissionForbidden(a, 'expected type CertificateSigningRequest, got: <nil>');
      const signerName = signerNameOf(a.oldObject);
      if (!(await isAuthorizedForSignerName(authorizer, a.userInfo, 'approve', signerName))) {
        throw admissionForbidden(a, `user not permitted to approve requests with signerName ${goQuote(signerName)}`);
      }
    },
  };
}
