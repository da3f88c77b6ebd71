import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import type { SubjectAccessReviewSpec } from 'kubernetes-types/authorization/v1.js';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import { newFakeClient } from '../../../client/testing/fake-client.js';
import { StatusError } from '../../../machinery/status.js';
import { TerminalError } from '../../reconcile-loop.js';
import { newTestContext, waitFor, type TestContext } from '../../testing/test-context.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, type CsrObject } from '../csr.js';
import { csrObject, newCsrTestClient, newRequestPem, requestField, type CsrOptions } from '../testing/csr-fixtures.js';
import { csrApprovingController, newSarApprover } from './controller.js';

const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const BOOTSTRAPPER = { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'], uid: 'u-1', extra: { scope: ['a'] } };

describe('csrapproving', () => {
  let nodeRequest: string;
  before(async () => {
    nodeRequest = requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'] }));
  });

  const setup = (allowed: readonly string[] = ['nodeclient', 'selfnodeclient']) => {
    const fake = newFakeClient();
    const t = newCsrTestClient(fake, (spec) => allowed.includes(spec.resourceAttributes?.subresource ?? ''));
    return { fake, ...t, approve: newSarApprover(t.client) };
  };
  const seed = (fake: ReturnType<typeof newFakeClient>, options: Partial<CsrOptions> = {}): CsrObject =>
    fake.seed(CERTIFICATE_SIGNING_REQUESTS, [csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: nodeRequest, usages: CLIENT_USAGES, ...BOOTSTRAPPER, ...options })])[0]!;

  it("approves a bootstrapper's node client CSR after a nodeclient SubjectAccessReview of the requester", async () => {
    const s = setup();
    await s.approve(seed(s.fake));
    const expected: SubjectAccessReviewSpec = {
      user: 'system:bootstrap:abcdef',
      uid: 'u-1',
      groups: ['system:bootstrappers', 'system:authenticated'],
      extra: { scope: ['a'] },
      resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource: 'nodeclient' },
    };
    assert.deepEqual(s.reviews, [expected]);
    const stored = await s.client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).get('csr-1');
    assert.deepEqual(stored.status?.conditions, [
      { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
    ]);
    assert.equal(s.approvals.length, 1);
  });

  it('asks selfnodeclient first when the node renews its own certificate, then nodeclient', async () => {
    const self = setup(['selfnodeclient']);
    await self.approve(seed(self.fake, { username: 'system:node:n1', groups: ['system:nodes'] }));
    assert.deepEqual(self.reviews.map((r) => r.resourceAttributes?.subresource), ['selfnodeclient']);
    assert.equal(self.approvals[0]!.status?.conditions?.[0]?.message, 'Auto approving self kubelet client certificate after SubjectAccessReview.');

    const fallback = setup(['nodeclient']);
    await fallback.approve(seed(fallback.fake, { username: 'system:node:n1', groups: ['system:nodes'] }));
    assert.deepEqual(fallback.reviews.map((r) => r.resourceAttributes?.subresource), ['selfnodeclient', 'nodeclient']);
    assert.equal(fallback.approvals[0]!.status?.conditions?.[0]?.message, 'Auto approving kubelet client certificate after SubjectAccessReview.');
  });

  it('retries (throws) when no review allows a recognised request, and never denies', async () => {
    const s = setup([]);
    const csr = seed(s.fake, { username: 'system:node:n1' });
    await assert.rejects(s.approve(csr), (e: unknown) => {
      assert.ok(!(e instanceof TerminalError));
      assert.match(String(e), /recognized csr "csr-1" as \[selfnodeclient nodeclient\] but subject access review was not approved/);
      return true;
    });
    assert.equal(s.approvals.length, 0);
    assert.equal(s.fake.actionsOf('update').length, 0);
  });

  it('leaves alone what is not a node client request: wrong CN or O, SANs, usages, other signers', async () => {
    const cases: [string, Partial<CsrOptions>][] = [
      ['O not exactly system:nodes', { request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:bootstrappers'] })) }],
      ['two Os', { request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes', 'x'] })) }],
      ['CN not a node', { request: requestField(await newRequestPem({ cn: 'alice', o: ['system:nodes'] })) }],
      ['a DNS SAN', { request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1'] })) }],
      ['an IP SAN', { request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], ip: ['127.0.0.2'] })) }],
      ['an email SAN', { request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], email: ['a@b.c'] })) }],
      ['a URI SAN', { request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], uri: ['spiffe://x/y'] })) }],
      ['server auth usage', { usages: ['digital signature', 'key encipherment', 'server auth'] }],
      ['an extra usage', { usages: [...CLIENT_USAGES, 'server auth'] }],
      ['another signer', { signerName: KUBE_APISERVER_CLIENT_SIGNER }],
    ];
    for (const [what, options] of cases) {
      const s = setup();
      await s.approve(seed(s.fake, options));
      assert.equal(s.reviews.length, 0, what);
      assert.equal(s.approvals.length, 0, what);
    }
    const noRsa = setup();
    await noRsa.approve(seed(noRsa.fake, { usages: ['client auth', 'digital signature'] }));
    assert.equal(noRsa.approvals.length, 1, 'upstream also takes the usages without key encipherment');
  });

  it('skips requests already approved, denied or issued', async () => {
    for (const options of [
      { conditions: [{ type: 'Approved', status: 'True', reason: 'x' }] },
      { conditions: [{ type: 'Denied', status: 'True', reason: 'x' }] },
      { certificate: 'Y2VydA==' },
    ]) {
      const s = setup();
      await s.approve(seed(s.fake, options));
      assert.equal(s.reviews.length + s.approvals.length, 0);
    }
  });

  it('gives up on a malformed request (terminal) and names why', async () => {
    const s = setup();
    await assert.rejects(s.approve(seed(s.fake, { request: requestField('garbage') })), (e: unknown) => e instanceof TerminalError && /unable to parse csr "csr-1": PEM block type must be CERTIFICATE REQUEST/.test(e.message));
    const certBlock = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    await assert.rejects(s.approve(seed(s.fake, { name: 'c2', request: requestField(certBlock) })), /PEM block type must be CERTIFICATE REQUEST/);
    const badDer = '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n';
    await assert.rejects(s.approve(seed(s.fake, { name: 'c3', request: requestField(badDer) })), (e: unknown) => e instanceof TerminalError && /unable to parse csr "c3"/.test(e.message));
  });

  it('passes on errors of the review and of the approval update', async () => {
    const fake = newFakeClient();
    const failing = newCsrTestClient(fake, () => {
      throw new StatusError({ code: 500, reason: 'InternalError', message: 'review broke' });
    });
    await assert.rejects(newSarApprover(failing.client)(seed(fake)), /review broke/);
    const s = setup();
    s.fake.injectError('update', 'certificatesigningrequests/status', new StatusError({ code: 409, reason: 'Conflict', message: 'stale' }));
    await assert.rejects(s.approve(seed(s.fake)), /error updating approval for csr: stale/);
  });

  describe('as a controller', () => {
    let t: TestContext | undefined;
    afterEach(() => t?.stop());
    it('approves a node client CSR created after start', async () => {
      const fake = newFakeClient();
      const c = newCsrTestClient(fake, () => true);
      t = newTestContext({ client: fake });
      await csrApprovingController.start({ ...t.ctx, client: c.client });
      t.start();
      await fake.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).create(
        csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: nodeRequest, usages: CLIENT_USAGES, ...BOOTSTRAPPER }),
      );
      await waitFor(async () => (await fake.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).get('csr-1')).status?.conditions?.[0]?.reason === 'AutoApproved');
      assert.equal(csrApprovingController.enabledByDefault, true);
    });
  });
});
