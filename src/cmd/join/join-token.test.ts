import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bootstrapTokenSecret, formatBootstrapToken } from '../../machinery/bootstrap-token.js';
import { SECRETS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { createJoinToken, deleteJoinToken, ensureServerJoinToken, joinTokenFile, listJoinTokens, readTokenSecret, tokenIsUsable } from './join-token.js';

describe('join tokens', () => {
  it('creates the Secret kubeadm writes and reads it back', async () => {
    const client = newFakeClient();
    const now = new Date('2026-01-01T00:00:00Z');
    const info = await createJoinToken(client, { ttlMs: 3600_000, description: 'for n2', now });
    assert.equal(info.expires?.toISOString(), '2026-01-01T01:00:00.000Z');
    assert.equal(info.description, 'for n2');
    assert.deepEqual(info.usages, ['authentication', 'signing']);
    assert.deepEqual(info.extraGroups, ['system:bootstrappers:k8ts:default-node-token']);
    const secret = await client.resource(SECRETS).get(`bootstrap-token-${info.token.id}`, { namespace: 'kube-system' });
    assert.equal(secret['type'], 'bootstrap.kubernetes.io/token');
    assert.ok(tokenIsUsable(info, now));
    assert.ok(!tokenIsUsable(info, new Date('2026-01-01T02:00:00Z')));
    const forever = await createJoinToken(client, { ttlMs: 0 });
    assert.equal(forever.expires, undefined);
    assert.ok(tokenIsUsable(forever, new Date('2099-01-01T00:00:00Z')));
  });

  it('lists only well-formed bootstrap-token Secrets, and deletes by id or whole token', async () => {
    const client = newFakeClient();
    const a = await createJoinToken(client, { ttlMs: 0 });
    const b = await createJoinToken(client, { ttlMs: 0 });
    await client.resource(SECRETS).create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'other', namespace: 'kube-system' }, type: 'Opaque', data: {} });
    const misnamed = bootstrapTokenSecret({ token: { id: 'aaaaaa', secret: 'bbbbbbbbbbbbbbbb' } });
    await client.resource(SECRETS).create({ ...misnamed, metadata: { ...misnamed.metadata, name: 'bootstrap-token-zzzzzz' } });
    assert.deepEqual((await listJoinTokens(client)).map((t) => t.token.id), [a.token.id, b.token.id].sort());
    assert.equal(await deleteJoinToken(client, a.token.id), a.token.id);
    assert.equal(await deleteJoinToken(client, formatBootstrapToken(b.token)), b.token.id);
    assert.deepEqual(await listJoinTokens(client), []);
    await assert.rejects(deleteJoinToken(client, 'qqqqqq'), /bootstrap token "qqqqqq" not found/);
    await assert.rejects(deleteJoinToken(client, 'Bad!'), /invalid token "Bad!"/);
  });

  it('k8ts server keeps its recorded token while it works, and makes a new one when it does not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k8ts-join-token-'));
    try {
      const client = newFakeClient();
      const first = await ensureServerJoinToken(client, dir);
      assert.equal(first.reused, false);
      assert.equal((await readFile(joinTokenFile(dir), 'utf8')).trim(), formatBootstrapToken(first.token));
      const again = await ensureServerJoinToken(client, dir);
      assert.equal(again.reused, true);
      assert.deepEqual(again.token, first.token);
      // Its Secret is gone (deleted, or removed by the token cleaner): a new token.
      await deleteJoinToken(client, first.token.id);
      const replaced = await ensureServerJoinToken(client, dir);
      assert.equal(replaced.reused, false);
      assert.notDeepEqual(replaced.token, first.token);
      // Nearly expired: a new one too.
      const later = new Date(Date.now() + 23.5 * 3600_000);
      assert.equal((await ensureServerJoinToken(client, dir, later)).reused, false);
      // A garbled file: a new one.
      await writeFile(joinTokenFile(dir), 'garbage');
      assert.equal((await ensureServerJoinToken(client, dir)).reused, false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads no token out of a Secret of another type', () => {
    assert.equal(readTokenSecret({ metadata: { name: 'x' }, type: 'Opaque' }), undefined);
  });
});
