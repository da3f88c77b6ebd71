import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { addProxyFlags, newProxier, parseHostPort, runProxy, type ProxyFlags } from './proxy.js';
import { proxyArgs } from './server.js';

describe('k8ts proxy (the command)', { timeout: 60_000 }, () => {
  let dir: string;
  let flags: ProxyFlags;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'k8ts-proxy-cmd-'));
    const kubeconfig = join(dir, 'proxy.kubeconfig');
    // Nothing listens there: the informers keep retrying until the test stops the proxy.
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    flags = { kubeconfig, proxyMode: 'userspace', bindAddress: '127.0.0.1', metricsBindAddress: '127.0.0.1:0', nodeportAddresses: [], udpTimeout: 250, hostnameOverride: 'n1' };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses upstream flag names with upstream defaults', () => {
    const command = addProxyFlags(new Command('proxy').exitOverride());
    command.parse(['--kubeconfig', 'k', '--nodeport-addresses', '127.0.0.0/8, 10.0.0.1', '--min-sync-period', '0s', '--iptables-sync-period', '2s'], { from: 'user' });
    const parsed = command.opts<ProxyFlags>();
    assert.equal(parsed.proxyMode, 'userspace');
    assert.equal(parsed.metricsBindAddress, '127.0.0.1:10249');
    assert.deepEqual(parsed.nodeportAddresses, ['127.0.0.0/8', '10.0.0.1']);
    assert.equal(parsed.minSyncPeriod, 0);
    assert.equal(parsed.iptablesSyncPeriod, 2000);
    assert.equal(parsed.udpTimeout, 250);
  });

  it('refuses a bad mode, a bad address and a bad duration', () => {
    const parse = (...args: string[]): unknown => addProxyFlags(new Command('proxy').exitOverride().configureOutput({ writeErr: () => undefined })).parse(args, { from: 'user' });
    assert.throws(() => parse('--proxy-mode', 'kernelspace'), /invalid --proxy-mode "kernelspace": use one of userspace, iptables, nftables, ipvs/);
    assert.throws(() => parse('--metrics-bind-address', 'localhost'), /invalid --metrics-bind-address "localhost"/);
    assert.throws(() => parse('--min-sync-period', 'soon'), /invalid duration "soon"/);
  });

  it('reads host:port as upstream writes it', () => {
    assert.deepEqual(parseHostPort('127.0.0.1:10249', 'x'), { host: '127.0.0.1', port: 10249 });
    assert.deepEqual(parseHostPort('[::1]:0', 'x'), { host: '::1', port: 0 });
    assert.deepEqual(parseHostPort(':10249', 'x'), { host: '0.0.0.0', port: 10249 });
    assert.throws(() => parseHostPort('1.2.3.4:70000', '--metrics-bind-address'), /invalid --metrics-bind-address/);
  });

  it('says which modes this build has', () => {
    assert.equal(newProxier(flags, '127.0.0.1').mode, 'userspace');
    assert.throws(() => newProxier({ ...flags, proxyMode: 'ipvs' }, '127.0.0.1'), /--proxy-mode ipvs is not available in this build yet: use --proxy-mode userspace/);
  });

  it('exits 1 without a kubeconfig, with a mode not built, or with a taken metrics address', async () => {
    const { kubeconfig: _, ...noKubeconfig } = flags;
    assert.equal(await runProxy(noKubeconfig), 1);
    assert.equal(await runProxy({ ...flags, proxyMode: 'nftables' }), 1);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    assert.equal(await runProxy({ ...flags, metricsBindAddress: `127.0.0.1:${taken}` }), 1);
    squatter.close();
  });

  it('runs until stopped, even while the API server cannot be reached, and exits 0', async () => {
    const stop = new AbortController();
    const running = runProxy(flags, { signal: stop.signal });
    setImmediate(() => stop.abort());
    assert.equal(await running, 0);
  });

  it('is started by k8ts server with the system:kube-proxy kubeconfig, the node\'s name and IP, and the pass-through flags last', () => {
    assert.deepEqual(proxyArgs({ nodeIp: '127.0.0.2', proxyArg: ['--min-sync-period=0s'] }, { kubeconfig: '/d/pki/proxy.kubeconfig', nodeName: 'n2', metricsPort: 4321 }), [
      'proxy',
      '--kubeconfig',
      '/d/pki/proxy.kubeconfig',
      '--hostname-override',
      'n2',
      '--bind-address',
      '127.0.0.2',
      '--metrics-bind-address',
      '127.0.0.1:4321',
      '--min-sync-period=0s',
    ]);
  });
});
