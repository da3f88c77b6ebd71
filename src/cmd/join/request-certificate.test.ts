import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../client/rest/resources.js';
import { StatusError } from '../../machinery/status.js';
import { describeCertificate } from '../pki/certificate-info.js';
import { newCertificateAuthority, type CertificateAuthority } from '../pki/certificates.js';
import { newCertificateRequest } from './certificate-request.js';
import { CLIENT_USAGES, csrNameFor, csrOutcome, KUBE_APISERVER_CLIENT_KUBELET_SIGNER, requestCertificate, type CertificateSigningRequest } from './request-certificate.js';
import { startFakeSigner, type SignerVerdict } from './testing/fake-signer.js';

describe('requesting a certificate with a CSR', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await newCertificateAuthority();
  });

  async function run(verdict: SignerVerdict, timeoutMs = 5000): Promise<{ cert: string; csr: CertificateSigningRequest }> {
    const client = newFakeClient();
    const signer = startFakeSigner(client, ca, () => verdict);
    const request = await newCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
    const name = csrNameFor({ keyPem: request.keyPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: CLIENT_USAGES });
    try {
      const cert = await requestCertificate(client, { name, csrPem: request.csrPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: CLIENT_USAGES, timeoutMs });
      return { cert, csr: await client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS).get(name) };
    } finally {
      signer.stop();
    }
  }

  it('creates the CSR with the signer and usages, and returns the certificate once signed', async () => {
    const { cert, csr } = await run('sign');
    assert.equal(describeCertificate(cert).commonName, 'system:node:n1');
    assert.deepEqual(describeCertificate(cert).organizations, ['system:nodes']);
    assert.equal(csr.spec?.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
    assert.deepEqual(csr.spec?.usages, ['digital signature', 'client auth']);
    assert.match(Buffer.from(csr.spec?.request ?? '', 'base64').toString('utf8'), /^-----BEGIN CERTIFICATE REQUEST-----/);
    assert.match(csr.metadata.name ?? '', /^node-csr-[A-Za-z0-9_-]{43}$/);
  });

  it('fails with the reason when the CSR is denied or failed', async () => {
    await assert.rejects(run('deny'), /certificate signing request node-csr-\S+ was denied: NotAllowed: a test said no/);
    await assert.rejects(run('fail'), /certificate signing request node-csr-\S+ was not signed \(Failed\): SignerValidationFailure: bad request/);
  });

  it('gives up at the deadline, saying what to check', async () => {
    await assert.rejects(run('ignore', 300), /was not approved and signed within 0 s: is the controller manager running its csrapproving and csrsigning controllers\?.*kubectl certificate approve node-csr-/);
  });

  it('finds its earlier CSR (same key) instead of failing on AlreadyExists', async () => {
    const client = newFakeClient();
    const request = await newCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
    const name = csrNameFor({ keyPem: request.keyPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: CLIENT_USAGES });
    const options = { name, csrPem: request.csrPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: CLIENT_USAGES, timeoutMs: 200 };
    await assert.rejects(requestCertificate(client, options), /within/);
    const csrs = client.resource<CertificateSigningRequest>(CERTIFICATE_SIGNING_REQUESTS);
    const existing = await csrs.get(name);
    const { signCsr } = await import('./testing/sign-csr.js');
    await csrs.updateStatus({ ...existing, status: { certificate: Buffer.from(await signCsr(ca, request.csrPem, { usage: 'client' })).toString('base64') } });
    assert.match(await requestCertificate(client, options), /BEGIN CERTIFICATE/);
    assert.equal(client.actionsOf('create', 'certificatesigningrequests').length, 2, 'the second create failed with AlreadyExists');
  });

  it('names a refused token clearly', async () => {
    const client = newFakeClient();
    client.injectError('create', 'certificatesigningrequests', new StatusError({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' }));
    const request = await newCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] });
    await assert.rejects(
      requestCertificate(client, { name: 'x', csrPem: request.csrPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: CLIENT_USAGES, timeoutMs: 200 }),
      /the server refused the credentials \(401 Unauthorized\): check --token/,
    );
  });

  it('names CSRs after key, signer and usages', async () => {
    const a = await newCertificateRequest({ commonName: 'x' });
    const name = csrNameFor({ keyPem: a.keyPem, signerName: 's', usages: ['client auth'] });
    assert.equal(csrNameFor({ keyPem: a.keyPem, signerName: 's', usages: ['client auth'] }), name);
    assert.notEqual(csrNameFor({ keyPem: a.keyPem, signerName: 't', usages: ['client auth'] }), name);
  });

  it('reads the outcome of a CSR', () => {
    assert.equal(csrOutcome({ metadata: { name: 'c' } }), undefined);
    assert.equal(csrOutcome({ metadata: { name: 'c' }, status: { conditions: [{ type: 'Approved', status: 'True' }] } }), undefined);
    assert.deepEqual(csrOutcome({ metadata: { name: 'c' }, status: { conditions: [{ type: 'Denied', status: 'True' }] } }), { refused: 'certificate signing request c was denied' });
  });
});
