/**
 * CertificateSigning (on by default, as upstream): a write of
 * certificatesigningrequests/status that changes status.certificate needs verb
 * `sign` on the stored request's signer, else 403 "user not permitted to sign
 * requests with signerName …". Other status writes (conditions) pass.
 */
import { goQuote } from '../../../../machinery/validation/go-text.js';
import type { AdmissionAttributes, AdmissionDependencies, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { admissionForbidden, isAuthorizedForSignerName, isCsrRequest, requireAuthorizer, signerNameOf } from './signer-authorization.js';

const certificateOf = (object: AdmissionAttributes['object']): string => {
  const status = object?.status as { certificate?: unknown } | undefined;
  return typeof status?.certificate === 'string' ? Buffer.from(status.certificate, 'base64').toString('latin1') : '';
};

export function newCertificateSigning(deps: AdmissionDependencies): ValidatingAdmissionPlugin {
  const authorizer = requireAuthorizer('CertificateSigning', deps.authorizer);
  return {
    name: 'CertificateSigning',
    handles: (operation) => operation === 'UPDATE',
    async validate(a: AdmissionAttributes) {
      if (!isCsrRequest(a, 'status')) return;
      if (a.oldObject === undefined) throw admissionForbidden(a, 'expected type CertificateSigningRequest, got: <nil>');
      if (a.object === undefined) throw admissionForbidden(a, 'expected type CertificateSigningRequest, got: <nil>');
      if (certificateOf(a.oldObject) === certificateOf(a.object)) return;
      const signerName = signerNameOf(a.oldObject);
      if (!(await isAuthorizedForSignerName(authorizer, a.userInfo, 'sign', signerName))) {
        throw admissionForbidden(a, `user not permitted to sign requests with signerName ${goQuote(signerName)}`);
      }
    },
  };
}
