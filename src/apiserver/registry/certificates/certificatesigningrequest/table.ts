/**
 * `kubectl get csr`: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION,
 * the condition as upstream prints it: Denied, else Approved, else Pending,
 * then `,Failed` and `,Issued` when they apply.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { humanDuration } from '../../printing/human-duration.js';
import { NONE, orNone } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

/** The CONDITION column. */
export function csrCondition(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if ((csr.status?.certificate ?? '').length > 0) text += ',Issued';
  return text;
}

export const certificateSigningRequestTable: TableConvertor<CertificateSigningRequest> = {
  columns: [
    nameColumn(),
    ageColumn(),
    column('SignerName', 'string', 'The signer the request is for.'),
    column('Requestor', 'string', 'The user who created the request.'),
    column('RequestedDuration', 'string', 'The validity the request asks for (spec.expirationSeconds).'),
    column('Condition', 'string', 'Whether the request is approved or denied, failed, and issued.'),
  ],
  cells(csr, now) {
    const seconds = csr.spec?.expirationSeconds;
    return [
      csr.metadata?.name ?? '',
      age(csr, now),
      orNone(csr.spec?.signerName),
      csr.spec?.username ?? '',
      seconds === undefined || seconds === null ? NONE : humanDuration(seconds * 1000),
      csrCondition(csr),
    ];
  },
};
