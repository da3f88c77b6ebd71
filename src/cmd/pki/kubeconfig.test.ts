import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { issueClientCertificate, newCertificateAuthority } from './certificates.js';
import { renderKubeconfig, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';

const execFileAsync = promisify(execFile);

describe('kubeconfig', () => {
  let dir: string;
  let options: KubeconfigOptions;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-kubeconfig-'));
    const ca = await newCertificateAuthority();
    const client = await issueClientCertificate(ca, { commonName: 'system:kube-scheduler' });
    options = {
      serverUrl: 'https://127.0.0.1:6443',
      caCertPem: ca.certPem,
      clientCertPem: client.certPem,
      clientKeyPem: client.keyPem,
      userName: 'system:kube-scheduler',
    };
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('renders one cluster, one user and one current context with embedded base64 data', () => {
    const config: unknown = parse(renderKubeconfig(options));
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    assert.deepEqual(config, {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'k8ts', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(options.caCertPem) } }],
      users: [
        {
          name: 'system:kube-scheduler',
          user: { 'client-certificate-data': b64(options.clientCertPem), 'client-key-data': b64(options.clientKeyPem) },
        },
      ],
      contexts: [{ name: 'system:kube-scheduler@k8ts', context: { cluster: 'k8ts', user: 'system:kube-scheduler' } }],
      'current-context': 'system:kube-scheduler@k8ts',
      preferences: {},
    });
  });

  it('takes cluster and context names, and renders the same bytes for the same options', () => {
    const text = renderKubeconfig({ ...options, clusterName: 'c', contextName: 'ctx' });
    assert.equal(text, renderKubeconfig({ ...options, clusterName: 'c', contextName: 'ctx' }));
    const config = parse(text) as { 'current-context': string; contexts: { context: { cluster: string } }[] };
    assert.equal(config['current-context'], 'ctx');
    assert.equal(config.contexts[0]?.context.cluster, 'c');
    // base64 has no spaces, so nothing folds, but no line should be wrapped either way.
    assert.ok(text.split('\n').some((line) => line.length > 200));
  });

  it('refuses a server URL that is not https', () => {
    assert.throws(() => renderKubeconfig({ ...options, serverUrl: 'http://127.0.0.1:8080' }), /must be https/);
    assert.throws(() => renderKubeconfig({ ...options, serverUrl: 'not a url' }));
  });

  it('writes mode 0600, even over a world-readable file', async () => {
    const path = join(dir, 'scheduler.kubeconfig');
    await writeFile(path, 'old');
    await chmod(path, 0o644);
    await writeKubeconfig(path, options);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal(await readFile(path, 'utf8'), renderKubeconfig(options));
  });

  it('is read by kubectl as written', async () => {
    const path = join(dir, 'kubectl.kubeconfig');
    await writeKubeconfig(path, options);
    const { stdout } = await execFileAsync('kubectl', ['--kubeconfig', path, 'config', 'view', '--raw', '-o', 'json'], {
      env: { ...process.env, HOME: dir },
      timeout: 30_000,
    });
    const viewed = JSON.parse(stdout) as {
      'current-context': string;
      clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { name: string; user: { 'client-key-data': string } }[];
    };
    assert.equal(viewed['current-context'], 'system:kube-scheduler@k8ts');
    assert.equal(viewed.clusters[0]?.cluster.server, 'https://127.0.0.1:6443');
    assert.equal(Buffer.from(viewed.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString(), options.caCertPem);
    assert.equal(Buffer.from(viewed.users[0]?.user['client-key-data'] ?? '', 'base64').toString(), options.clientKeyPem);
  });
});
