import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tokenSourceFor } from './credentials.js';

const dir = mkdtempSync(join(tmpdir(), 'k8ts-credentials-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A plugin that counts its runs in a file and prints a token with that count, expiring at EXPIRY. */
function plugin(expiry: string | undefined): string {
  const script = join(dir, `plugin-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from 'node:fs';
const f = ${JSON.stringify(join(dir, 'count'))} + process.env.TAG;
let n = 0; try { n = Number(readFileSync(f, 'utf8')); } catch {}
writeFileSync(f, String(++n));
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 't' + n + process.env.TAG${expiry === undefined ? '' : `, expirationTimestamp: ${JSON.stringify(expiry)}`} } }));`,
  );
  return script;
}

describe('tokenSourceFor', () => {
  it('gives a fixed token, or none', async () => {
    assert.equal(await tokenSourceFor({ server: 'https://x', token: 'abc' }).token(), 'abc');
    assert.equal(await tokenSourceFor({ server: 'https://x' }).token(), undefined);
  });
  it('reads a token file, again after a minute or an invalidate', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'one\n');
    let now = 0;
    const source = tokenSourceFor({ server: 'https://x', tokenFile: file }, { now: () => now });
    assert.equal(await source.token(), 'one');
    writeFileSync(file, 'two');
    assert.equal(await source.token(), 'one');
    now = 61_000;
    assert.equal(await source.token(), 'two');
    writeFileSync(file, 'three');
    source.invalidate();
    assert.equal(await source.token(), 'three');
    await assert.rejects(tokenSourceFor({ server: 'https://x', tokenFile: join(dir, 'absent') }).token(), /cannot read the token file .*absent/);
  });
  it('runs an exec plugin with its env and caches the token until it expires', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const exec = { command: process.execPath, args: [plugin('2030-01-01T00:10:00Z')], env: [{ name: 'TAG', value: 'a' }], apiVersion: 'client.authentication.k8s.io/v1' };
    const source = tokenSourceFor({ server: 'https://x', exec }, { now: () => now });
    const [first, concurrent] = await Promise.all([source.token(), source.token()]);
    assert.equal(first, 't1a');
    assert.equal(concurrent, 't1a');
    now += 60_000;
    assert.equal(await source.token(), 't1a');
    now += 10 * 60_000;
    assert.equal(await source.token(), 't2a');
    source.invalidate();
    assert.equal(await source.token(), 't3a');
  });
  it('explains a failing plugin or one that prints no credential', async () => {
    const failing = { command: process.execPath, args: ['-e', 'console.error("no login"); process.exit(3)'], apiVersion: 'client.authentication.k8s.io/v1' };
    await assert.rejects(tokenSourceFor({ server: 'https://x', exec: failing }).token(), /exec credential plugin .* failed: .*no login/);
    const silent = { command: process.execPath, args: ['-e', 'console.log("{}")'], apiVersion: 'client.authentication.k8s.io/v1' };
    await assert.rejects(tokenSourceFor({ server: 'https://x', exec: silent }).token(), /printed no status.token/);
    const garbage = { command: process.execPath, args: ['-e', 'console.log("hi")'], apiVersion: 'client.authentication.k8s.io/v1' };
    await assert.rejects(tokenSourceFor({ server: 'https://x', exec: garbage }).token(), /printed no JSON ExecCredential/);
  });
});
