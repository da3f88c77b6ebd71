import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { compactVerify } from 'jose';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { newInformerFactory } from '../../client/cache/informer-factory.js';
import { CONFIG_MAPS, SECRETS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { bootstrapTokenSecret } from '../../machinery/bootstrap-token.js';
import type { KubeObject } from '../../machinery/meta.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { bootstrapSignerController, computeDetachedSignature, newBootstrapSigner } from './bootstrap-signer.js';
import type { SecretObject } from './token-secret.js';

type ConfigMapObject = ConfigMap & KubeObject;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters: []\n';
const SECRET = '0123456789abcdef';
const token = (id: string, options: { expires?: Date; signing?: boolean } = {}): SecretObject =>
  bootstrapTokenSecret({ token: { id, secret: SECRET }, ...options }) as SecretObject;
const clusterInfo = (data: Record<string, string> = { kubeconfig: KUBECONFIG }): ConfigMapObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cluster-info', namespace: 'kube-public' },
  data,
});

async function verifies(signature: string, content: string, secret: string): Promise<boolean> {
  const [header, , sig] = signature.split('.');
  const full = `${header}.${Buffer.from(content).toString('base64url')}.${sig}`;
  try {
    const { protectedHeader } = await compactVerify(full, new TextEncoder().encode(secret));
    return protectedHeader.alg === 'HS256';
  } catch {
    return false;
  }
}

describe('bootstrapsigner', () => {
  const setup = async (secrets: SecretObject[], cm?: ConfigMapObject) => {
    const fake = newFakeClient();
    fake.seed(SECRETS, secrets);
    if (cm !== undefined) fake.seed(CONFIG_MAPS, [cm]);
    const informers = newInformerFactory(fake);
    const cms = informers.informerFor<ConfigMapObject>(CONFIG_MAPS);
    const ss = informers.informerFor<SecretObject>(SECRETS);
    informers.start();
    await informers.waitForCacheSync();
    const sync = newBootstrapSigner({ client: fake, configMaps: cms.indexer, secrets: ss.indexer, now: () => NOW });
    const get = async (): Promise<ConfigMapObject> => fake.resource<ConfigMapObject>(CONFIG_MAPS).get('cluster-info', { namespace: 'kube-public' });
    return { fake, sync, get, stop: () => informers.stop() };
  };

  it('computes a detached HS256 JWS with the token id as kid', async () => {
    const sig = await computeDetachedSignature(KUBECONFIG, 'abcdef', SECRET);
    assert.match(sig, /^[\w-]+\.\.[\w-]+$/);
    assert.deepEqual(JSON.parse(Buffer.from(sig.split('.')[0]!, 'base64url').toString()), { alg: 'HS256', kid: 'abcdef' });
    assert.ok(await verifies(sig, KUBECONFIG, SECRET));
    assert.ok(!(await verifies(sig, `${KUBECONFIG} `, SECRET)));
  });

  it('signs cluster-info for each signing token, drops stale signatures, and requeues at the next expiry', async () => {
    const secrets = [
      token('aaaaaa', { expires: new Date(NOW + 60_000) }),
      token('bbbbbb'),
      token('cccccc', { signing: false }),
      token('dddddd', { expires: new Date(NOW - 1000) }),
    ];
    const s = await setup(secrets, clusterInfo({ kubeconfig: KUBECONFIG, other: 'kept', 'jws-kubeconfig-zzzzzz': 'stale..sig' }));
    try {
      assert.deepEqual(await s.sync(), { requeueAfterMs: 60_001 });
      const data = (await s.get()).data ?? {};
      assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-aaaaaa', 'jws-kubeconfig-bbbbbb', 'kubeconfig', 'other']);
      assert.ok(await verifies(data['jws-kubeconfig-aaaaaa']!, KUBECONFIG, SECRET));
      await s.sync();
      assert.equal(s.fake.actionsOf('update').length, 1, 'no write when the signatures are already right');
    } finally {
      s.stop();
    }
  });

  it('skips a token whose id does not match its name, and a cluster-info without kubeconfig or absent', async () => {
    const mismatched = token('aaaaaa');
    mismatched.metadata.name = 'bootstrap-token-bbbbbb';
    const s = await setup([mismatched], clusterInfo());
    try {
      await s.sync();
      assert.equal(s.fake.actionsOf('update').length, 0);
    } finally {
      s.stop();
    }
    const empty = await setup([token('aaaaaa')], clusterInfo({}));
    try {
      await empty.sync();
      assert.equal(empty.fake.actionsOf('update').length, 0);
    } finally {
      empty.stop();
    }
    const none = await setup([token('aaaaaa')]);
    try {
      assert.equal(await none.sync(), undefined);
    } finally {
      none.stop();
    }
  });

  describe('as a controller', () => {
    let t: TestContext | undefined;
    afterEach(() => t?.stop());
    it('signs when a token appears and unsigns when it is deleted', async () => {
      t = newTestContext();
      t.client.seed(CONFIG_MAPS, [clusterInfo()]);
      await bootstrapSignerController.start(t.ctx);
      t.start();
      const cms = t.client.resource<ConfigMapObject>(CONFIG_MAPS);
      await t.client.resource(SECRETS).create(token('abcdef'));
      await waitFor(async () => (await cms.get('cluster-info', { namespace: 'kube-public' })).data?.['jws-kubeconfig-abcdef'] !== undefined);
      await t.client.resource(SECRETS).delete('bootstrap-token-abcdef', { namespace: 'kube-system' });
      await waitFor(async () => (await cms.get('cluster-info', { namespace: 'kube-public' })).data?.['jws-kubeconfig-abcdef'] === undefined);
    });
  });
});
