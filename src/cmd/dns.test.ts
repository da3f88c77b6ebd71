import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addDnsFlags, parseHostPort, runDns, type DnsFlags } from './dns.js';
import { addKubeletFlags, type KubeletFlags } from './kubelet-flags.js';
import { dnsArgs, kubeletArgs } from './server.js';

function parse<T>(add: (c: Command) => Command, args: string[]): { flags?: T; error?: string } {
  const command = add(new Command('x')).exitOverride();
  let error = '';
  command.configureOutput({ writeErr: (s) => (error += s), writeOut: () => undefined });
  try {
    command.parse(args, { from: 'user' });
    return { flags: command.opts<T & Record<string, unknown>>() };
  } catch (e: unknown) {
    return { error: error !== '' ? error : e instanceof Error ? e.message : String(e) };
  }
}

describe('k8ts dns flags', () => {
  it('defaults: 127.0.0.1:53, cluster.local, metrics on 127.0.0.1:9153, no upstream, TTL 5', () => {
    assert.deepEqual(parse<DnsFlags>(addDnsFlags, []).flags, { bindAddress: '127.0.0.1', port: 53, clusterDomain: 'cluster.local', metricsBindAddress: '127.0.0.1:9153', upstream: [], ttl: 5 });
  });
  it('takes every flag, upstreams repeated', () => {
    const { flags } = parse<DnsFlags>(addDnsFlags, ['--kubeconfig', 'k', '--port', '0', '--cluster-domain', 'k8ts.test', '--metrics-bind-address', '[::1]:0', '--upstream', '127.0.0.1:5353', '--upstream', '::1', '--ttl', '30']);
    assert.deepEqual(flags, { kubeconfig: 'k', bindAddress: '127.0.0.1', port: 0, clusterDomain: 'k8ts.test', metricsBindAddress: '[::1]:0', upstream: ['127.0.0.1:5353', '::1'], ttl: 30 });
  });
  it('refuses bad values', () => {
    assert.ok(parse<DnsFlags>(addDnsFlags, ['--port', '70000']).error);
    assert.ok(parse<DnsFlags>(addDnsFlags, ['--metrics-bind-address', 'nope']).error);
    assert.ok(parse<DnsFlags>(addDnsFlags, ['--upstream', 'a:b:c:99999']).error);
    assert.ok(parse<DnsFlags>(addDnsFlags, ['--ttl', '-1']).error);
    assert.throws(() => parseHostPort('host'), /want HOST:PORT/);
    assert.deepEqual(parseHostPort('[::1]:9'), { host: '::1', port: 9 });
  });
  it('runDns needs --kubeconfig, and a readable one', async () => {
    const base = parse<DnsFlags>(addDnsFlags, []).flags!;
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => written.push(s) > 0) as typeof process.stderr.write;
    try {
      assert.equal(await runDns(base), 1);
      assert.equal(await runDns({ ...base, kubeconfig: '/nonexistent/kubeconfig' }), 1);
    } finally {
      process.stderr.write = write;
    }
    assert.match(written[0] ?? '', /--kubeconfig is required/);
    assert.match(written[1] ?? '', /nonexistent/);
  });
});

describe('the kubelet\'s --cluster-dns, --cluster-domain and --resolv-conf', () => {
  it('default to none, \'\' and /etc/resolv.conf, as upstream', () => {
    const { flags } = parse<KubeletFlags>(addKubeletFlags, []);
    assert.deepEqual([flags?.clusterDns, flags?.clusterDomain, flags?.resolvConf], [[], '', '/etc/resolv.conf']);
  });
  it('--cluster-dns takes a comma-separated list, repeatable; refuses a non-address', () => {
    const { flags } = parse<KubeletFlags>(addKubeletFlags, ['--cluster-dns', '10.96.0.10, fd00::a', '--cluster-dns=127.0.0.1', '--cluster-domain', 'cluster.local']);
    assert.deepEqual(flags?.clusterDns, ['10.96.0.10', 'fd00::a', '127.0.0.1']);
    assert.equal(flags?.clusterDomain, 'cluster.local');
    assert.match(parse<KubeletFlags>(addKubeletFlags, ['--cluster-dns', 'dns.example']).error ?? '', /invalid IP address "dns.example"/);
  });
});

describe('k8ts server: the DNS and kubelet command lines', () => {
  it('runs k8ts dns as system:coredns on the node IP and the given ports', () => {
    assert.deepEqual(dnsArgs({ nodeIp: '127.0.0.1', clusterDomain: 'cluster.local' }, '/d/pki/dns.kubeconfig', { port: 40_053, healthPort: 40_054 }), {
      args: ['dns', '--kubeconfig', '/d/pki/dns.kubeconfig', '--bind-address', '127.0.0.1', '--port', '40053', '--cluster-domain', 'cluster.local', '--metrics-bind-address', '127.0.0.1:40054'],
      port: 40_053,
      healthPort: 40_054,
    });
  });
  it('gives the kubelet --cluster-dns and --cluster-domain before the pass-through flags', () => {
    const args = kubeletArgs(
      { nodeIp: '127.0.0.1', kubeletArg: ['--cluster-domain=other.test'] },
      { dataDir: '/d', nodeName: 'vm', kubeconfig: '/d/k', clientCaFile: '/d/ca', port: 1, clusterDns: { ip: '127.0.0.1', domain: 'cluster.local' } },
    );
    assert.deepEqual(args.slice(-5), ['--cluster-dns', '127.0.0.1', '--cluster-domain', 'cluster.local', '--cluster-domain=other.test']);
  });
});
