import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { SECRETS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newInformerFactory } from '../../client/cache/informer-factory.js';
import { bootstrapTokenSecret } from '../../machinery/bootstrap-token.js';
import { StatusError } from '../../machinery/status.js';
import { disabledByDefault } from '../registry.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { newTokenCleaner, tokenCleanerController } from './token-cleaner.js';
import type { SecretObject } from './token-secret.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const token = (id: string, expires?: Date): SecretObject => bootstrapTokenSecret({ token: { id, secret: '0123456789abcdef' }, ...(expires !== undefined ? { expires } : {}) }) as SecretObject;

describe('tokencleaner', () => {
  const setup = async (secrets: SecretObject[]) => {
    const fake = newFakeClient();
    fake.seed(SECRETS, secrets);
    const informers = newInformerFactory(fake);
    const informer = informers.informerFor<SecretObject>(SECRETS);
    informers.start();
    await informers.waitForCacheSync();
    const sync = newTokenCleaner({ client: fake, secrets: informer.indexer, now: () => NOW });
    return { fake, sync, stop: () => informers.stop() };
  };

  it('deletes an expired token Secret with a uid precondition; requeues one that expires later; keeps one without expiration', async () => {
    const s = await setup([token('aaaaaa', new Date(NOW - 1000)), token('bbbbbb', new Date(NOW + 60_000)), token('cccccc')]);
    try {
      assert.equal(await s.sync('kube-system/bootstrap-token-aaaaaa'), undefined);
      const [del] = s.fake.actionsOf('delete');
      assert.equal(del?.name, 'bootstrap-token-aaaaaa');
      assert.ok((del?.body as { preconditions?: { uid?: string } }).preconditions?.uid);
      assert.deepEqual(await s.sync('kube-system/bootstrap-token-bbbbbb'), { requeueAfterMs: 60_001 });
      assert.equal(await s.sync('kube-system/bootstrap-token-cccccc'), undefined);
      assert.equal(s.fake.actionsOf('delete').length, 1);
    } finally {
      s.stop();
    }
  });

  it('treats an unparsable expiration as expired, and ignores other Secrets and missing keys', async () => {
    const bad = token('dddddd');
    bad.data = { ...bad.data, expiration: Buffer.from('tomorrow').toString('base64') };
    const opaque: SecretObject = { ...token('eeeeee', new Date(NOW - 1000)), type: 'Opaque' };
    const s = await setup([bad, opaque]);
    try {
      await s.sync('kube-system/bootstrap-token-dddddd');
      await s.sync('kube-system/bootstrap-token-eeeeee');
      await s.sync('kube-system/absent');
      assert.deepEqual(s.fake.actionsOf('delete').map((a) => a.name), ['bootstrap-token-dddddd']);
    } finally {
      s.stop();
    }
  });

  it('ignores NotFound and Conflict on delete and retries other errors', async () => {
    const s = await setup([token('aaaaaa', new Date(NOW - 1000))]);
    try {
      s.fake.injectError('delete', 'secrets', new StatusError({ code: 409, reason: 'Conflict', message: 'uid' }));
      await s.sync('kube-system/bootstrap-token-aaaaaa');
      s.fake.injectError('delete', 'secrets', new StatusError({ code: 404, reason: 'NotFound', message: 'gone' }));
      await s.sync('kube-system/bootstrap-token-aaaaaa');
      s.fake.injectError('delete', 'secrets', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
      await assert.rejects(s.sync('kube-system/bootstrap-token-aaaaaa'), /boom/);
    } finally {
      s.stop();
    }
  });

  describe('as a controller (off by default, as upstream)', () => {
    let t: TestContext | undefined;
    afterEach(() => t?.stop());
    it('deletes a token when it expires', async () => {
      assert.ok(disabledByDefault().includes('tokencleaner'));
      assert.ok(disabledByDefault().includes('bootstrapsigner'));
      t = newTestContext();
      // Whole seconds: the expiration is RFC 3339 to the second.
      t.client.seed(SECRETS, [token('ffffff', new Date(Math.ceil((Date.now() + 300) / 1000) * 1000)), token('gggggg')]);
      await tokenCleanerController.start(t.ctx);
      t.start();
      await waitFor(() => t!.client.actionsOf('delete').length === 1, { timeoutMs: 5000 });
      assert.equal(t.client.actionsOf('delete')[0]!.name, 'bootstrap-token-ffffff');
    });
  });
});
