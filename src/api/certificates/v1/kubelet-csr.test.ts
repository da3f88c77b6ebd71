import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCertificateRequest } from './certificate-request.js';
import { kubeletClientCsrError, kubeletServingCsrError } from './kubelet-csr.js';
import { makeCsr, type CsrOptions } from './testing/make-csr.js';

const parsed = async (o: CsrOptions) => parseCertificateRequest((await makeCsr(o)).pem);
const NODE = { commonName: 'system:node:n1', organizations: ['system:nodes'] };

describe('kubelet certificate requests', () => {
  it('a kubelet client request: O system:nodes alone, CN system:node:…, no SANs, client usages', async () => {
    assert.equal(kubeletClientCsrError(await parsed(NODE), ['digital signature', 'client auth']), undefined);
    assert.equal(kubeletClientCsrError(await parsed(NODE), ['key encipherment', 'digital signature', 'client auth']), undefined);
    assert.equal(kubeletClientCsrError(await parsed({ ...NODE, organizations: ['system:nodes', 'x'] }), ['client auth']), 'subject organization is not system:nodes');
    assert.equal(kubeletClientCsrError(await parsed({ ...NODE, dnsNames: ['n1'] }), []), 'DNS subjectAltNames are not allowed');
    assert.equal(kubeletClientCsrError(await parsed({ ...NODE, emails: ['a@b.c'] }), []), 'Email subjectAltNames are not allowed');
    assert.equal(kubeletClientCsrError(await parsed({ ...NODE, ipAddresses: ['10.0.0.1'] }), []), 'IP subjectAltNames are not allowed');
    assert.equal(kubeletClientCsrError(await parsed({ ...NODE, uris: ['spiffe://x'] }), []), 'URI subjectAltNames are not allowed');
    assert.equal(kubeletClientCsrError(await parsed({ ...NODE, commonName: 'n1' }), []), 'subject common name does not begin with system:node:');
    assert.equal(kubeletClientCsrError(await parsed(NODE), ['server auth']), 'usages did not match [client auth digital signature key encipherment]');
  });

  it('a kubelet serving request: O system:nodes alone, a DNS or IP SAN, serving usages, CN system:node:…', async () => {
    const serving = { ...NODE, dnsNames: ['n1'] };
    const usages = ['digital signature', 'server auth'];
    assert.equal(kubeletServingCsrError(await parsed(serving), usages), undefined);
    assert.equal(kubeletServingCsrError(await parsed({ ...serving, organizations: [] }), usages), 'subject organization is not system:nodes');
    assert.equal(kubeletServingCsrError(await parsed(NODE), usages), 'DNS or IP subjectAltName is required');
    assert.equal(kubeletServingCsrError(await parsed({ ...serving, emails: ['a@b.c'] }), usages), 'Email subjectAltNames are not allowed');
    assert.equal(kubeletServingCsrError(await parsed({ ...serving, uris: ['spiffe://x'] }), usages), 'URI subjectAltNames are not allowed');
    assert.equal(kubeletServingCsrError(await parsed(serving), ['client auth']), 'usages did not match [digital signature key encipherment server auth]');
    assert.equal(kubeletServingCsrError(await parsed({ ...serving, commonName: 'n1' }), usages), 'subject common name does not begin with system:node:');
  });
});
