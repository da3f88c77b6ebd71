import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import { newFakeClient } from '../../../client/testing/fake-client.js';
import { StatusError } from '../../../machinery/status.js';
import { TerminalError } from '../../reconcile-loop.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBELET_SERVING_SIGNER, type CsrObject } from '../csr.js';
import { csrObject, newCsrTestClient, newRequestPem, requestField, type CsrOptions, type RequestOptions } from '../testing/csr-fixtures.js';
import { KUBELET_SERVING_APPROVAL_MESSAGE, kubeletServingApproverController, newKubeletServingApprover } from './kubelet-serving-approver.js';

const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const NODE = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const OWN: RequestOptions = { cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1'], ip: ['127.0.0.2'] };

describe('kubelet-serving-approver (a k8ts addition)', () => {
  let ownRequest: string;
  before(async () => {
    ownRequest = requestField(await newRequestPem(OWN));
  });
  const run = async (options: Partial<CsrOptions> = {}) => {
    const fake = newFakeClient();
    const c = newCsrTestClient(fake, () => false);
    const csr = fake.seed(CERTIFICATE_SIGNING_REQUESTS, [csrObject({ signerName: KUBELET_SERVING_SIGNER, request: ownRequest, usages: SERVING_USAGES, ...NODE, ...options })])[0]!;
    await newKubeletServingApprover(c.client)(csr);
    return { fake, c, approved: c.approvals.length === 1 };
  };

  it("approves a node's request for its own serving certificate (IP SANs allowed), on by default", async () => {
    const { c, fake } = await run();
    assert.deepEqual(c.approvals[0]!.status?.conditions, [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: KUBELET_SERVING_APPROVAL_MESSAGE }]);
    assert.equal((await fake.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).get('csr-1')).status?.conditions?.length, 1);
    assert.equal(c.reviews.length, 0, 'no SubjectAccessReview: the requester is checked directly');
    assert.equal((await run({ usages: ['server auth', 'digital signature'] })).approved, true);
    assert.equal((await run({ request: requestField(await newRequestPem({ ...OWN, dns: [] })) })).approved, true, 'IP SANs only');
    assert.equal(kubeletServingApproverController.enabledByDefault, true);
  });

  it('leaves alone every request that is not a node asking for itself', async () => {
    const req = async (o: RequestOptions): Promise<Partial<CsrOptions>> => ({ request: requestField(await newRequestPem({ ...OWN, ...o })) });
    const cases: [string, Partial<CsrOptions>][] = [
      ['another node\'s name in CN', await req({ cn: 'system:node:n2' })],
      ['another node\'s name in a DNS SAN', await req({ dns: ['n1', 'n2'] })],
      ['a requester that is not a node', { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] }],
      ['a bare system:node: user', { username: 'system:node:' }],
      ['a node user outside system:nodes', { groups: ['system:authenticated'] }],
      ['O not exactly system:nodes', await req({ o: ['system:nodes', 'extra'] })],
      ['no server auth', { usages: ['digital signature', 'key encipherment'] }],
      ['client auth', { usages: [...SERVING_USAGES, 'client auth'] }],
      ['no SAN', await req({ dns: [], ip: [] })],
      ['an email SAN', await req({ email: ['n1@example.com'] })],
      ['a URI SAN', await req({ uri: ['spiffe://cluster/n1'] })],
      ['another signer', { signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER }],
      ['already approved', { conditions: [{ type: 'Approved', status: 'True' }] }],
      ['already denied', { conditions: [{ type: 'Denied', status: 'True' }] }],
      ['already issued', { certificate: 'eA==' }],
    ];
    for (const [what, options] of cases) {
      const { approved, fake } = await run(options);
      assert.equal(approved, false, what);
      assert.equal(fake.actionsOf('update').length, 0, what);
    }
  });

  it('gives up on a malformed request and passes on a failed approval update', async () => {
    await assert.rejects(run({ request: requestField('nope') }), (e: unknown) => e instanceof TerminalError && /unable to parse csr "csr-1"/.test(e.message));
    const fake = newFakeClient();
    const c = newCsrTestClient(fake, () => false);
    const csr = fake.seed(CERTIFICATE_SIGNING_REQUESTS, [csrObject({ signerName: KUBELET_SERVING_SIGNER, request: ownRequest, usages: SERVING_USAGES, ...NODE })])[0]!;
    fake.injectError('update', 'certificatesigningrequests/status', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await assert.rejects(newKubeletServingApprover(c.client)(csr), /error updating approval for csr: boom/);
  });
});
