/**
 * Whether a user may act for a signer (upstream's IsAuthorizedForSignerName):
 * verb `approve` or `sign` on the synthetic resource `signers` of
 * certificates.k8s.io, named by the signer name, or by `<domain>/*` for every
 * signer of a domain. An authorizer error counts as no.
 */
import type { UserInfo } from '../../../server/context.js';
import type { Attributes, Authorizer } from '../../../auth/authorizers/interface.js';
import type { AdmissionAttributes } from '../../interfaces.js';
import { forbidden, type StatusError } from '../../../../machinery/status.js';

export const CERTIFICATES_GROUP = 'certificates.k8s.io';
export const CSR_RESOURCE = 'certificatesigningrequests';

const signerAttributes = (user: UserInfo, verb: string, name: string): Attributes => ({
  user,
  verb,
  isResourceRequest: true,
  path: '',
  namespace: '',
  apiGroup: CERTIFICATES_GROUP,
  apiVersion: '*',
  resource: 'signers',
  subresource: '',
  name,
});

export async function isAuthorizedForSignerName(authorizer: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  const domain = signerName.split('/')[0]!;
  for (const name of [signerName, `${domain}/*`]) {
    try {
      if ((await authorizer.authorize(signerAttributes(user, verb, name))).decision === 'Allow') return true;
    } catch {
      // upstream logs the error and goes on to the next check
    }
  }
  return false;
}

/** Whether a request is for CertificateSigningRequests (the subresource given, '' for the resource itself). */
export const isCsrRequest = (a: AdmissionAttributes, subresource: string): boolean =>
  a.resource.group === CERTIFICATES_GROUP && a.resource.resource === CSR_RESOURCE && a.subresource === subresource;

/** Upstream's admission.NewForbidden: `<resource>.<group> "<name>" is forbidden: <message>`. */
export function admissionForbidden(a: AdmissionAttributes, message: string): StatusError {
  const meta = a.object?.metadata ?? a.oldObject?.metadata;
  const name = a.name !== '' ? a.name : meta?.name !== undefined && meta.name !== '' ? meta.name : meta?.generateName !== undefined && meta.generateName !== '' ? meta.generateName : 'Unknown';
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, name, message);
}

/** The signer name of a stored or written CSR. */
export function signerNameOf(object: AdmissionAttributes['object']): string {
  const spec = object?.spec as { signerName?: unknown } | undefined;
  return typeof spec?.signerName === 'string' ? spec.signerName : '';
}

/** The authorizer a plugin needs (upstream's ValidateInitialization). */
export function requireAuthorizer(plugin: string, authorizer: Authorizer | undefined): Authorizer {
  if (authorizer === undefined) throw new Error(`${plugin} requires an authorizer`);
  return authorizer;
}
