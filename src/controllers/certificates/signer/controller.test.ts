import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../../../client/testing/fake-client.js';
import { StatusError } from '../../../machinery/status.js';
import { TerminalError } from '../../reconcile-loop.js';
import { newTestContext, waitFor, type TestContext } from '../../testing/test-context.js';
import { kubeletServingApproverController } from '../approver/kubelet-serving-approver.js';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, type CsrObject } from '../csr.js';
import { csrObject, newCsrTestClient, newRequestPem, requestField, writeTestCa, type CsrOptions, type TestCa } from '../testing/csr-fixtures.js';
import { certificateTtlMs, keyUsagesOf, loadSigningAuthority, validityPeriod, type SigningAuthority } from './certificate-authority.js';
import { csrSigningController, newCsrSigner } from './controller.js';

const HOUR = 3600_000;
const YEAR = 8760 * HOUR;
const APPROVED = [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }];
const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const NOW = new Date('2026-06-01T12:00:00.000Z');

describe('csrsigning', () => {
  let dir: string;
  let ca: TestCa;
  let authority: SigningAuthority;
  let nodeRequest: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'csrsigning-'));
    ca = await writeTestCa(dir);
    authority = await loadSigningAuthority(ca.certFile, ca.keyFile);
    nodeRequest = requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'] }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const sign = async (options: Partial<CsrOptions> = {}, signer: { authority?: SigningAuthority; durationMs?: number } = {}) => {
    const fake = newFakeClient();
    const csr = fake.seed(CERTIFICATE_SIGNING_REQUESTS, [
      csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: nodeRequest, usages: CLIENT_USAGES, conditions: APPROVED, ...options }),
    ])[0]!;
    const handle = newCsrSigner({ client: fake, authority: signer.authority ?? authority, signingDurationMs: signer.durationMs ?? YEAR, now: () => NOW });
    await handle(csr);
    const stored = await fake.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS).get(csr.metadata.name ?? '');
    const pem = Buffer.from(stored.status?.certificate ?? '', 'base64').toString('utf8');
    return { fake, stored, pem, cert: pem.includes('BEGIN CERTIFICATE') ? new X509Certificate(pem) : undefined };
  };

  it('issues a kubelet client certificate from the CA: subject of the request, usages, one year backdated 5 minutes', async () => {
    const { cert, pem, fake } = await sign();
    assert.ok(cert);
    assert.equal(pem.match(/BEGIN CERTIFICATE/g)?.length, 1, 'the leaf only');
    assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey), 'signed by the CA');
    assert.ok(cert.checkIssued(new X509Certificate(ca.certPem)));
    assert.equal(cert.subject, 'O=system:nodes\nCN=system:node:n1');
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(cert.subjectAltName, undefined);
    assert.equal(Date.parse(cert.validFrom), NOW.getTime() - 5 * 60_000);
    assert.equal(Date.parse(cert.validTo), NOW.getTime() + YEAR - 5 * 60_000);
    assert.deepEqual(fake.actionsOf('update').map((a) => a.subresource), ['status']);
  });

  it('issues a kubelet serving certificate with the SANs of the request and server auth', async () => {
    const request = requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1'], ip: ['127.0.0.2'] }));
    const { cert } = await sign({ signerName: KUBELET_SERVING_SIGNER, request, usages: ['digital signature', 'key encipherment', 'server auth'] });
    assert.ok(cert);
    assert.equal(cert.subjectAltName, 'DNS:n1, IP Address:127.0.0.2');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  });

  it('issues any kube-apiserver-client certificate whose usages are client ones', async () => {
    const request = requestField(await newRequestPem({ cn: 'alice', o: ['devs'] }));
    const { cert } = await sign({ signerName: KUBE_APISERVER_CLIENT_SIGNER, request, usages: ['client auth'] });
    assert.equal(cert?.subject, 'O=devs\nCN=alice');
  });

  it('clamps the lifetime: spec.expirationSeconds when shorter (at least 10 min), never past the CA', async () => {
    assert.equal(Date.parse((await sign({ expirationSeconds: 3600 })).cert!.validTo), NOW.getTime() + HOUR, 'short: the end is not backdated');
    assert.equal(Date.parse((await sign({ expirationSeconds: 86_400 })).cert!.validTo), NOW.getTime() + 24 * HOUR - 5 * 60_000);
    assert.equal(Date.parse((await sign({ expirationSeconds: 60 })).cert!.validTo), NOW.getTime() + 10 * 60_000);
    assert.equal(Date.parse((await sign({ expirationSeconds: 2 * 8760 * 3600 })).cert!.validTo), NOW.getTime() + YEAR - 5 * 60_000);
    assert.equal(Date.parse((await sign({}, { durationMs: 2 * HOUR })).cert!.validTo), NOW.getTime() + 2 * HOUR);
    const shortDir = await mkdtemp(join(tmpdir(), 'csrsigning-short-'));
    try {
      const shortCa = await writeTestCa(shortDir, { notAfter: new Date(NOW.getTime() + 24 * HOUR) });
      const { cert } = await sign({}, { authority: await loadSigningAuthority(shortCa.certFile, shortCa.keyFile) });
      assert.equal(Date.parse(cert!.validTo), shortCa.notAfter.getTime());
    } finally {
      await rm(shortDir, { recursive: true, force: true });
    }
    assert.equal(certificateTtlMs(YEAR, undefined), YEAR);
    assert.throws(() => validityPeriod(NOW, HOUR, new Date(NOW.getTime() - 10 * 60_000)), /the signer has expired/);
    assert.throws(() => validityPeriod(NOW, HOUR, new Date(NOW.getTime() - 1)), /refusing to sign a certificate that expired in the past/);
  });

  it("marks Failed (SignerValidationFailure, upstream's message) a request whose usages or subject its signer refuses", async () => {
    const serving = requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1'] }));
    const cases: [Partial<CsrOptions>, string][] = [
      [{ usages: ['digital signature', 'server auth'] }, 'usages did not match [client auth digital signature key encipherment]'],
      [{ request: requestField(await newRequestPem({ cn: 'system:node:n1', o: ['x'] })) }, 'subject organization is not system:nodes'],
      [{ request: requestField(await newRequestPem({ cn: 'bob', o: ['system:nodes'] })) }, 'subject common name does not begin with system:node:'],
      [{ request: serving }, 'DNS subjectAltNames are not allowed'],
      [{ signerName: KUBELET_SERVING_SIGNER, usages: ['digital signature', 'server auth'] }, 'DNS or IP subjectAltName is required'],
      [{ signerName: KUBELET_SERVING_SIGNER, request: serving, usages: ['client auth'] }, 'usages did not match [digital signature key encipherment server auth]'],
      [{ signerName: KUBE_APISERVER_CLIENT_SIGNER, usages: ['client auth', 'server auth'] }, 'invalid usage for client certificate: server auth'],
      [{ signerName: KUBE_APISERVER_CLIENT_SIGNER, usages: ['digital signature'] }, 'missing required usage for client certificate: client auth'],
    ];
    for (const [options, message] of cases) {
      const { stored, cert } = await sign(options);
      assert.equal(cert, undefined, message);
      assert.deepEqual(stored.status?.conditions?.[1], { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message, lastUpdateTime: '2026-06-01T12:00:00Z' });
    }
  });

  it('leaves alone requests not approved, denied, failed, issued or for another signer', async () => {
    const cases: Partial<CsrOptions>[] = [
      { conditions: [] },
      { conditions: [...APPROVED, { type: 'Denied', status: 'True' }] },
      { conditions: [...APPROVED, { type: 'Failed', status: 'True' }] },
      { certificate: 'eA==' },
      { signerName: 'example.com/other' },
      { signerName: 'kubernetes.io/legacy-unknown' },
    ];
    for (const options of cases) {
      const { fake } = await sign(options);
      assert.equal(fake.actionsOf('update').length, 0, JSON.stringify(options));
    }
  });

  it('gives up on a malformed request; retries a bad signature and failed status writes', async () => {
    await assert.rejects(sign({ request: requestField('x') }), (e: unknown) => e instanceof TerminalError && /unable to parse csr "csr-1": PEM block type must be CERTIFICATE REQUEST/.test(e.message));
    const pem = Buffer.from(nodeRequest, 'base64').toString('utf8');
    const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der.writeUInt8(der.readUInt8(der.length - 2) ^ 0xff, der.length - 2);
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await assert.rejects(sign({ request: requestField(tampered) }), (e: unknown) => !(e instanceof TerminalError) && /error auto signing csr: unable to verify certificate request signature/.test(String(e)));

    const fake = newFakeClient();
    const csr = fake.seed(CERTIFICATE_SIGNING_REQUESTS, [csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: nodeRequest, usages: CLIENT_USAGES, conditions: APPROVED })])[0]!;
    const handle = newCsrSigner({ client: fake, authority, signingDurationMs: YEAR });
    fake.injectError('update', 'certificatesigningrequests/status', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await assert.rejects(handle(csr), /error updating signature for csr: boom/);
    fake.injectError('update', 'certificatesigningrequests/status', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await assert.rejects(handle({ ...csr, spec: { ...csr.spec, usages: ['server auth'] } }), /error adding failure condition for csr: boom/);
  });

  it('maps usages to x509 key usages and refuses unknown ones', () => {
    assert.deepEqual(keyUsagesOf(['digital signature', 'signing', 'key encipherment', 'server auth', 'client auth', 's/mime', 'email protection']), {
      keyUsage: 1 | 4,
      extKeyUsages: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4'],
    });
    assert.throws(() => keyUsagesOf(['client auth', 'teleport', 'fly']), /^Error: unrecognized usage values: \["teleport" "fly"\]$/);
  });

  it('refuses missing, unparsable, non-CA and mismatched signing files', async () => {
    await assert.rejects(loadSigningAuthority(join(dir, 'none.crt'), ca.keyFile), /error reading CA cert file ".*none\.crt"/);
    await assert.rejects(loadSigningAuthority(ca.certFile, join(dir, 'none.key')), /error reading CA key file ".*none\.key"/);
    const junk = join(dir, 'junk.pem');
    await writeFile(junk, 'junk');
    await assert.rejects(loadSigningAuthority(junk, ca.keyFile), /error parsing CA cert file/);
    await assert.rejects(loadSigningAuthority(ca.certFile, junk), /error parsing CA key file/);
    const other = await writeTestCa(dir, { prefix: 'other' });
    await assert.rejects(loadSigningAuthority(ca.certFile, other.keyFile), /does not match the certificate/);
    const leaf = await writeTestCa(dir, { prefix: 'leaf', ca: false });
    await assert.rejects(loadSigningAuthority(leaf.certFile, leaf.keyFile), /holds no CA certificate/);
  });

  describe('as a controller', () => {
    let t: TestContext | undefined;
    afterEach(() => t?.stop());

    it('signs what is approved after start', async () => {
      t = newTestContext({ options: { clusterSigningCertFile: ca.certFile, clusterSigningKeyFile: ca.keyFile } });
      await csrSigningController.start(t.ctx);
      t.start();
      const csrs = t.client.resource<CsrObject>(CERTIFICATE_SIGNING_REQUESTS);
      const created = await csrs.create(csrObject({ signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, request: nodeRequest, usages: CLIENT_USAGES }));
      await csrs.updateStatus({ ...created, status: { conditions: APPROVED } });
      await waitFor(async () => ((await csrs.get('csr-1')).status?.certificate ?? '') !== '');
    });

    it('stays idle without the signing files', async () => {
      const fake: FakeClient = newFakeClient();
      const c = newCsrTestClient(fake, () => false);
      t = newTestContext({ client: fake, options: { clusterSigningCertFile: ca.certFile } });
      await csrSigningController.start({ ...t.ctx, client: c.client });
      // A barrier: the kubelet-serving approver on the same informers approves a CSR; no certificate follows.
      await kubeletServingApproverController.start({ ...t.ctx, client: c.client });
      t.start();
      const request = requestField(await newRequestPem({ cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1'] }));
      await fake.resource(CERTIFICATE_SIGNING_REQUESTS).create(
        csrObject({ signerName: KUBELET_SERVING_SIGNER, request, usages: ['digital signature', 'server auth'], username: 'system:node:n1', groups: ['system:nodes'] }),
      );
      await waitFor(() => c.approvals.length === 1);
      await csrSigningController.start({ ...t.ctx, client: c.client, options: { ...t.ctx.options, clusterSigningCertFile: '' } });
      assert.equal(fake.actionsOf('update').length, 1, 'the approval only');
    });
  });
});
