/**
 * For unit tests: the controller manager's CSR approver and signer, played
 * against a fake client — watches CSRs and approves and signs each new one,
 * or denies or fails it, as the test chooses.
 */
import type { Client } from '../../../client/rest/interface.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import type { CertificateAuthority } from '../../pki/certificates.js';
import { KUBELET_SERVING_SIGNER, type CertificateSigningRequest } from '../request-certificate.js';
import { signCsr } from './sign-csr.js';

export type SignerVerdict = 'sign' | 'deny' | 'fail' | 'ignore';

export function startFakeSigner(client: Client, ca: CertificateAuthority, verdict: (csr: CertificateSigningRequest) => SignerVerdict = () => 'sign'): { stop(): void; seen: string[] } {
  const csrs = client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS);
  const stream = csrs.watch({});
  const seen: string[] = [];
  void (async () => {
    for await (const event of stream) {
      if (event.type !== 'ADDED') continue;
      const csr = event.object;
      seen.push(csr.metadata.name ?? '');
      const v = verdict(csr);
      if (v === 'ignore') continue;
      const status: CertificateSigningRequest['status'] =
        v === 'deny'
          ? { conditions: [{ type: 'Denied', status: 'True', reason: 'NotAllowed', message: 'a test said no' }] }
          : v === 'fail'
            ? { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'bad request' }] }
            : {
                conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }],
                certificate: Buffer.from(
                  await signCsr(ca, Buffer.from(csr.spec?.request ?? '', 'base64').toString('utf8'), { usage: csr.spec?.signerName === KUBELET_SERVING_SIGNER ? 'server' : 'client' }),
                ).toString('base64'),
              };
      await csrs.updateStatus({ ...csr, status });
    }
  })();
  return { stop: () => stream.cancel(), seen };
}
