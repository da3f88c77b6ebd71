import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureServiceAccountKey } from './service-account-key.js';

describe('service-account key', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sa-key-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes an RSA pair on first start (key 0600) and keeps it afterwards', async () => {
    const written: string[] = [];
    const paths = await ensureServiceAccountKey(dir, written);
    assert.deepEqual(written, [paths.privateKey, paths.publicKey]);
    const keyPem = await readFile(paths.privateKey, 'utf8');
    assert.match(keyPem, /BEGIN RSA PRIVATE KEY/);
    assert.equal((await stat(paths.privateKey)).mode & 0o777, 0o600);
    const pub = createPublicKey(await readFile(paths.publicKey, 'utf8'));
    assert.ok(pub.equals(createPublicKey(createPrivateKey(keyPem))));
    const again: string[] = [];
    await ensureServiceAccountKey(dir, again);
    assert.deepEqual(again, []);
    assert.equal(await readFile(paths.privateKey, 'utf8'), keyPem);
  });

  it('derives a missing sa.pub from sa.key', async () => {
    const paths = await ensureServiceAccountKey(dir);
    await unlink(paths.publicKey);
    const written: string[] = [];
    await ensureServiceAccountKey(dir, written);
    assert.deepEqual(written, [paths.publicKey]);
  });

  it('refuses sa.pub without sa.key, and a sa.key that is not a key', async () => {
    const other = await mkdtemp(join(tmpdir(), 'sa-key-'));
    try {
      await writeFile(join(other, 'sa.pub'), 'x');
      await assert.rejects(ensureServiceAccountKey(other), /sa.pub exists but its private key .*sa.key does not/);
      await writeFile(join(other, 'sa.key'), 'not a key');
      await assert.rejects(ensureServiceAccountKey(other), /is not a private key in PEM form/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
