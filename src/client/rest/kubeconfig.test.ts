import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { restConfigFromKubeconfig } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'k8ts-kubeconfig-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, doc: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof doc === 'string' ? doc : stringify(doc));
  return path;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const config = (overrides: { cluster?: object; user?: object; current?: string } = {}): object => ({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [
    { name: 'c1', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64('CA PEM'), ...overrides.cluster } },
    { name: 'c2', cluster: { server: 'https://127.0.0.2:6443', 'certificate-authority': 'ca.crt', 'insecure-skip-tls-verify': true } },
  ],
  users: [
    { name: 'admin', user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY'), ...overrides.user } },
    { name: 'files', user: { 'client-certificate': 'client.crt', 'client-key': '/dev/null', tokenFile: 'token' } },
    { name: 'plugin', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/cred', args: ['a'], env: [{ name: 'X', value: '1' }] } } },
  ],
  contexts: [
    { name: 'one', context: { cluster: 'c1', user: 'admin' } },
    { name: 'two', context: { cluster: 'c2', user: 'files' } },
    { name: 'exec', context: { cluster: 'c1', user: 'plugin' } },
    { name: 'ghost-cluster', context: { cluster: 'nope', user: 'admin' } },
    { name: 'ghost-user', context: { cluster: 'c1', user: 'nobody' } },
  ],
  'current-context': overrides.current ?? 'one',
});

describe('restConfigFromKubeconfig', () => {
  it('reads inline data of the current context', () => {
    const path = write('inline', config());
    assert.deepEqual(restConfigFromKubeconfig(path, { userAgent: 'ua', qps: 7, burst: 9 }), {
      server: 'https://127.0.0.1:6443',
      ca: 'CA PEM',
      clientCert: 'CERT',
      clientKey: 'KEY',
      userAgent: 'ua',
      qps: 7,
      burst: 9,
    });
  });
  it('reads files relative to the kubeconfig for another context', () => {
    writeFileSync(join(dir, 'ca.crt'), 'FILE CA');
    writeFileSync(join(dir, 'client.crt'), 'FILE CERT');
    const path = write('files', config());
    const rc = restConfigFromKubeconfig(path, { context: 'two' });
    assert.equal(rc.ca, 'FILE CA');
    assert.equal(rc.clientCert, 'FILE CERT');
    assert.equal(rc.clientKey, '');
    assert.equal(rc.tokenFile, join(dir, 'token'));
    assert.equal(rc.insecureSkipTlsVerify, true);
  });
  it('reads an exec plugin, its command relative to the kubeconfig', () => {
    const rc = restConfigFromKubeconfig(write('exec', config()), { context: 'exec' });
    assert.deepEqual(rc.exec, { command: join(dir, 'bin/cred'), args: ['a'], env: [{ name: 'X', value: '1' }], apiVersion: 'client.authentication.k8s.io/v1', cwd: dir });
  });
  it('names the file and the field in every error', () => {
    assert.throws(() => restConfigFromKubeconfig(join(dir, 'missing')), /cannot read kubeconfig .*missing/);
    assert.throws(() => restConfigFromKubeconfig(write('bad-yaml', 'a: [')), /bad-yaml is not valid YAML/);
    assert.throws(() => restConfigFromKubeconfig(write('scalar', '3')), /scalar is not a mapping/);
    const path = write('errors', config());
    assert.throws(() => restConfigFromKubeconfig(path, { context: 'nope' }), /errors: context "nope" does not exist/);
    assert.throws(() => restConfigFromKubeconfig(path, { context: 'ghost-cluster' }), /cluster "nope" of context "ghost-cluster" does not exist/);
    assert.throws(() => restConfigFromKubeconfig(path, { context: 'ghost-user' }), /user "nobody" of context "ghost-user" does not exist/);
    assert.throws(() => restConfigFromKubeconfig(write('no-server', config({ cluster: { server: '' } }))), /no-server: clusters\[c1\]\.cluster\.server is not set/);
    assert.throws(() => restConfigFromKubeconfig(write('no-current', config({ current: '' }))), /no-current: no context given and current-context is not set/);
    assert.throws(() => restConfigFromKubeconfig(write('bad-file', config({ user: { 'client-certificate-data': undefined, 'client-certificate': 'absent.crt' } }))), /bad-file: cannot read users\[admin\]\.client-certificate .*absent\.crt/);
    assert.throws(() => restConfigFromKubeconfig(write('bad-type', config({ user: { token: 5 } }))), /bad-type: users\[admin\]\.token must be a string/);
    assert.throws(() => restConfigFromKubeconfig(write('bad-exec', config({ user: { exec: { args: [] } } }))), /bad-exec: users\[admin\]\.user\.exec\.command is not set/);
    assert.throws(() => restConfigFromKubeconfig(write('bad-list', { clusters: {} })), /bad-list: clusters must be a list/);
  });
});
