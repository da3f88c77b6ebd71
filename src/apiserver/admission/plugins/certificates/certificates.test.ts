import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { asBytes, makeCertificatePem, makeCsr } from '../../../../api/certificates/v1/testing/make-csr.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { Attributes, Authorizer } from '../../../auth/authorizers/interface.js';
import type { AdmissionDependencies } from '../../interfaces.js';
import { attributesFor } from '../testing/attributes.js';
import { newCertificateApproval } from './certificate-approval.js';
import { newCertificateSigning } from './certificate-signing.js';
import { newCertificateSubjectRestriction } from './certificate-subject-restriction.js';

const GROUP = 'certificates.k8s.io';
const KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';

/** Allows the (verb, name) pairs given; records every question; throws for the name 'boom'. */
function authorizerAllowing(...allowed: string[]): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    asked,
    authorize(a) {
      asked.push(a);
      if (a.name === 'boom/x') throw new Error('authorizer down');
      return { decision: allowed.includes(`${a.verb} ${a.name}`) ? 'Allow' : 'NoOpinion', reason: '' };
    },
  };
}
const deps = (authorizer?: Authorizer): AdmissionDependencies => ({ stores: () => undefined, signal: new AbortController().signal, ...(authorizer !== undefined ? { authorizer } : {}) });

const csr = (signerName: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name: 'req' },
  spec: { request: '', signerName, usages: ['client auth'] },
  ...extra,
});
const update = (subresource: string, object: KubeObject, oldObject: KubeObject, user = { name: 'bob', groups: ['system:authenticated'] }) =>
  attributesFor({ operation: 'UPDATE', group: GROUP, resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', subresource, namespace: '', object, oldObject, user });

describe('certificate admission plugins', () => {
  it('need an authorizer (upstream ValidateInitialization)', () => {
    assert.throws(() => newCertificateApproval(deps()), /^Error: CertificateApproval requires an authorizer$/);
    assert.throws(() => newCertificateSigning(deps()), /^Error: CertificateSigning requires an authorizer$/);
  });

  describe('CertificateApproval', () => {
    it('handles updates of /approval only', async () => {
      const authz = authorizerAllowing();
      const plugin = newCertificateApproval(deps(authz));
      assert.equal(plugin.handles('UPDATE'), true);
      assert.equal(plugin.handles('CREATE'), false);
      await plugin.validate(update('status', csr(KUBELET), csr(KUBELET)));
      await plugin.validate(update('', csr(KUBELET), csr(KUBELET)));
      assert.equal(authz.asked.length, 0);
    });

    it('allows approve on the signer name, or on <domain>/*, checked against the stored signer', async () => {
      const exact = authorizerAllowing(`approve ${KUBELET}`);
      await newCertificateApproval(deps(exact)).validate(update('approval', csr('evil.io/x'), csr(KUBELET)));
      assert.deepEqual(
        exact.asked.map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.name, a.isResourceRequest, a.user.name]),
        [['approve', GROUP, '*', 'signers', KUBELET, true, 'bob']],
      );
      const wildcard = authorizerAllowing('approve kubernetes.io/*');
      await newCertificateApproval(deps(wildcard)).validate(update('approval', csr(KUBELET), csr(KUBELET)));
      assert.deepEqual(wildcard.asked.map((a) => a.name), [KUBELET, 'kubernetes.io/*']);
    });

    it('refuses anyone else with upstream 403', async () => {
      const plugin = newCertificateApproval(deps(authorizerAllowing(`approve other.io/x`, `sign ${KUBELET}`)));
      await assert.rejects(async () => plugin.validate(update('approval', csr(KUBELET), csr(KUBELET))), (e: Error & { code?: number }) => {
        assert.equal(e.code, 403);
        assert.equal(e.message, `certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "${KUBELET}"`);
        return true;
      });
    });

    it('counts an authorizer error as no', async () => {
      await assert.rejects(async () => newCertificateApproval(deps(authorizerAllowing())).validate(update('approval', csr('boom/x'), csr('boom/x'))), /not permitted to approve requests with signerName "boom\/x"/);
    });
  });

  describe('CertificateSigning', () => {
    let certificate: string;
    before(async () => {
      certificate = asBytes(await makeCertificatePem('x'));
    });

    it('lets status writes that leave the certificate alone through', async () => {
      const authz = authorizerAllowing();
      const plugin = newCertificateSigning(deps(authz));
      await plugin.validate(update('status', csr(KUBELET, { status: { conditions: [{ type: 'Failed', status: 'True' }] } }), csr(KUBELET)));
      await plugin.validate(update('approval', csr(KUBELET, { status: { certificate } }), csr(KUBELET)));
      assert.equal(authz.asked.length, 0);
      assert.equal(plugin.handles('CREATE'), false);
    });

    it('needs sign on the stored signer to set the certificate', async () => {
      await newCertificateSigning(deps(authorizerAllowing(`sign ${KUBELET}`))).validate(update('status', csr('evil.io/x', { status: { certificate } }), csr(KUBELET)));
      await newCertificateSigning(deps(authorizerAllowing('sign kubernetes.io/*'))).validate(update('status', csr(KUBELET, { status: { certificate } }), csr(KUBELET)));
      await assert.rejects(
        async () => newCertificateSigning(deps(authorizerAllowing(`approve ${KUBELET}`))).validate(update('status', csr(KUBELET, { status: { certificate } }), csr(KUBELET))),
        (e: Error & { code?: number }) => {
          assert.equal(e.code, 403);
          assert.equal(e.message, `certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to sign requests with signerName "${KUBELET}"`);
          return true;
        },
      );
    });
  });

  describe('CertificateSubjectRestriction', () => {
    const create = (object: KubeObject, subresource = '') =>
      attributesFor({ operation: 'CREATE', group: GROUP, resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', subresource, namespace: '', object });
    const client = 'kubernetes.io/kube-apiserver-client';

    it('refuses a kube-apiserver-client request for system:masters', async () => {
      const masters = await makeCsr({ commonName: 'root', organizations: ['devs', 'system:masters'] });
      const plugin = newCertificateSubjectRestriction();
      assert.equal(plugin.handles('CREATE'), true);
      assert.equal(plugin.handles('UPDATE'), false);
      assert.throws(
        () => plugin.validate(create(csr(client, { spec: { request: masters.base64, signerName: client } }))),
        (e: Error & { code?: number }) => {
          assert.equal(e.code, 403);
          assert.equal(e.message, 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
          return true;
        },
      );
      // Other signers, and requests without system:masters, pass.
      plugin.validate(create(csr(KUBELET, { spec: { request: masters.base64, signerName: KUBELET } })));
      const devs = await makeCsr({ commonName: 'dev', organizations: ['devs'] });
      plugin.validate(create(csr(client, { spec: { request: devs.base64, signerName: client } })));
    });

    it('refuses a request it cannot parse', () => {
      assert.throws(() => newCertificateSubjectRestriction().validate(create(csr(client, { spec: { request: asBytes('junk'), signerName: client } }))), {
        message: 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST',
      });
    });
  });
});

