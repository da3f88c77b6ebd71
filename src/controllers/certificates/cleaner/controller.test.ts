import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import { newFakeClient } from '../../../client/testing/fake-client.js';
import { formatTime } from '../../../machinery/meta.js';
import { StatusError } from '../../../machinery/status.js';
import { TerminalError } from '../../reconcile-loop.js';
import { newTestContext, waitFor, type TestContext } from '../../testing/test-context.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, type CsrObject } from '../csr.js';
import { loadSigningAuthority, signCertificateRequest } from '../signer/certificate-authority.js';
import { parseCertificateRequest } from '../csr.js';
import { csrObject, newRequestPem, requestField, writeTestCa, type CsrOptions } from '../testing/csr-fixtures.js';
import { csrCleanerController, MAX_REQUEUE_MS, newCsrCleaner } from './controller.js';

const HOUR = 3600_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const ago = (ms: number): string => formatTime(new Date(NOW - ms));

describe('csrcleaner', () => {
  let dir: string;
  let validCert: string;
  let expiredCert: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'csrcleaner-'));
    const ca = await writeTestCa(dir);
    const authority = await loadSigningAuthority(ca.certFile, ca.keyFile);
    const req = parseCertificateRequest(requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'] })));
    const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
    validCert = b64(await signCertificateRequest(authority, req, { usages: ['client auth'], ttlMs: 8760 * HOUR, now: new Date(NOW) }));
    expiredCert = b64(await signCertificateRequest(authority, req, { usages: ['client auth'], ttlMs: HOUR, now: new Date(NOW - 2 * HOUR) }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const clean = async (options: Partial<CsrOptions>) => {
    const fake = newFakeClient();
    const csr = fake.seed(CERTIFICATE_SIGNING_REQUESTS, [csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: 'eA==', creationTimestamp: ago(HOUR), ...options })])[0]!;
    const logs: string[] = [];
    const result = await newCsrCleaner({ client: fake, now: () => NOW, log: (m) => logs.push(m) })(csr);
    return { deleted: fake.actionsOf('delete').length === 1, result, logs, fake };
  };
  const approved = (at?: string) => [{ type: 'Approved', status: 'True', ...(at !== undefined ? { lastUpdateTime: at } : {}) }];

  it('deletes what is past its deadline, as upstream', async () => {
    const cases: [string, Partial<CsrOptions>, string][] = [
      ['pending after 24 h', { creationTimestamp: ago(25 * HOUR) }, 'it is more than 24h0m0s old and unhandled'],
      ['denied after 1 h', { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: ago(2 * HOUR) }] }, 'it is more than 1h0m0s old and denied'],
      ['failed after 1 h', { conditions: [...approved(ago(10 * 60_000)), { type: 'Failed', status: 'True', lastUpdateTime: ago(2 * HOUR) }] }, 'it is more than 1h0m0s old and failed'],
      ['issued after 1 h', { conditions: approved(ago(2 * HOUR)), certificate: validCert }, 'it is more than 1h0m0s old and approved'],
      ['issued with an expired certificate', { conditions: approved(), certificate: expiredCert }, 'the associated certificate is expired'],
    ];
    for (const [what, options, why] of cases) {
      const { deleted, logs, fake } = await clean(options);
      assert.ok(deleted, what);
      assert.deepEqual(logs, [`Cleaning CSR "csr-1" as ${why}`], what);
      assert.ok(fake.actionsOf('delete')[0]!.body !== undefined);
    }
  });

  it('requeues for the next deadline, at most a day ahead, and keeps what has none', async () => {
    const wait = async (options: Partial<CsrOptions>): Promise<number | undefined> => {
      const { deleted, result } = await clean(options);
      assert.equal(deleted, false);
      return result?.requeueAfterMs;
    };
    assert.equal(await wait({ creationTimestamp: ago(HOUR) }), 23 * HOUR + 1);
    assert.equal(await wait({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: ago(30 * 60_000) }] }), 30 * 60_000 + 1);
    assert.equal(await wait({ conditions: approved(ago(20 * 60_000)), certificate: validCert }), 40 * 60_000 + 1);
    assert.equal(await wait({ conditions: approved(), certificate: validCert }), MAX_REQUEUE_MS, 'a year away: looked at again in a day');
    assert.equal(await wait({ conditions: approved(ago(5 * HOUR)) }), undefined, 'approved, not issued: no deadline (upstream)');
    assert.equal(await wait({ conditions: [{ type: 'Denied', status: 'True' }] }), undefined, 'no lastUpdateTime: no deadline');
  });

  it('gives up on an unparsable certificate; ignores NotFound and retries other delete errors', async () => {
    await assert.rejects(clean({ conditions: approved(), certificate: 'eA==' }), (e: unknown) => e instanceof TerminalError && /expected the certificate associated with the CSR to be PEM encoded/.test(e.message));
    const junk = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64');
    await assert.rejects(clean({ conditions: approved(), certificate: junk }), /unable to parse certificate data/);
    const fake = newFakeClient();
    const csr = fake.seed(CERTIFICATE_SIGNING_REQUESTS, [csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: 'eA==', creationTimestamp: ago(25 * HOUR) })])[0]!;
    const handle = newCsrCleaner({ client: fake, now: () => NOW });
    fake.injectError('delete', 'certificatesigningrequests', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await assert.rejects(handle(csr), /unable to delete CSR "csr-1": boom/);
    await fake.resource(CERTIFICATE_SIGNING_REQUESTS).delete('csr-1');
    await handle(csr);
  });

  describe('as a controller', () => {
    let t: TestContext | undefined;
    afterEach(() => t?.stop());
    it('deletes an old denied CSR and keeps a fresh one', async () => {
      t = newTestContext();
      const csrs = t.client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
      t.client.seed(CERTIFICATE_SIGNING_REQUESTS, [
        csrObject({ name: 'old', signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: 'eA==', conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: formatTime(new Date(Date.now() - 2 * HOUR)) }] }),
        csrObject({ name: 'fresh', signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: 'eA==' }),
      ]);
      await csrCleanerController.start(t.ctx);
      t.start();
      await waitFor(() => t!.client.actionsOf('delete').length === 1);
      assert.deepEqual((await csrs.list()).items.map((c) => c.metadata.name), ['fresh']);
    });
  });
});
