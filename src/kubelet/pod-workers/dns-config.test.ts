import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { Pod } from '../types.js';
import { DNS_EVENT, formatResolvConf, parseResolvConf, podDnsConfig } from './dns-config.js';

const HOST = '# generated\nnameserver 192.0.2.53\nnameserver 192.0.2.54 ; second\nsearch corp.example. lab.example\noptions edns0 timeout:2\n';
const cluster = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', hostResolvConf: HOST };
const pod = (spec: Pod['spec'] = { containers: [] }): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'team', name: 'web', uid: 'u1' }, spec });

describe('parseResolvConf and formatResolvConf', () => {
  it('reads nameservers, the last search/domain line (trailing dots dropped), options; skips comments', () => {
    assert.deepEqual(parseResolvConf(HOST), { servers: ['192.0.2.53', '192.0.2.54'], searches: ['corp.example', 'lab.example'], options: ['edns0', 'timeout:2'] });
    assert.deepEqual(parseResolvConf('search a\ndomain b\nnameserver\n'), { servers: [], searches: ['b'], options: [] });
    assert.deepEqual(parseResolvConf(''), { servers: [], searches: [], options: [] });
  });
  it('writes search, nameserver and options lines; nothing for an empty config', () => {
    assert.equal(formatResolvConf({ servers: ['10.96.0.10'], searches: ['a.svc.cluster.local', 'cluster.local'], options: ['ndots:5'] }), 'search a.svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n');
    assert.equal(formatResolvConf({ servers: [], searches: [], options: [] }), '');
  });
});

describe('podDnsConfig', () => {
  it('ClusterFirst (the default policy): the cluster DNS, the cluster search path then the host\'s, ndots:5', () => {
    assert.deepEqual(podDnsConfig(pod(), cluster), {
      config: { servers: ['10.96.0.10'], searches: ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'], options: ['ndots:5'] },
      warnings: [],
    });
  });
  it('ClusterFirst on the host network means Default; ClusterFirstWithHostNet uses the cluster DNS', () => {
    assert.deepEqual(podDnsConfig(pod({ containers: [], hostNetwork: true }), cluster).config, parseResolvConf(HOST));
    assert.deepEqual(podDnsConfig(pod({ containers: [], hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), cluster).config.servers, ['10.96.0.10']);
  });
  it('Default: the host\'s resolv.conf', () => {
    assert.deepEqual(podDnsConfig(pod({ containers: [], dnsPolicy: 'Default' }), cluster), { config: parseResolvConf(HOST), warnings: [] });
  });
  it('None: only spec.dnsConfig', () => {
    const result = podDnsConfig(pod({ containers: [], dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['x.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] } }), cluster);
    assert.deepEqual(result.config, { servers: ['1.1.1.1'], searches: ['x.example'], options: ['ndots:2', 'edns0'] });
    assert.deepEqual(podDnsConfig(pod({ containers: [], dnsPolicy: 'None' }), cluster).config, { servers: [], searches: [], options: [] });
  });
  it('ClusterFirst without --cluster-dns falls back to Default with the MissingClusterDNS warning', () => {
    const result = podDnsConfig(pod(), { ...cluster, clusterDNS: [] });
    assert.deepEqual(result.config, parseResolvConf(HOST));
    assert.deepEqual(result.warnings, [
      {
        reason: DNS_EVENT.missingClusterDNS,
        message: 'pod: "web_team(u1)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.',
      },
    ]);
    assert.equal(DNS_EVENT.missingClusterDNS, 'MissingClusterDNS');
  });
  it('an empty --cluster-domain: only the host search path', () => {
    assert.deepEqual(podDnsConfig(pod(), { ...cluster, clusterDomain: '' }).config.searches, ['corp.example', 'lab.example']);
  });
  it('spec.dnsConfig is merged: nameservers and searches without duplicates, options by name with the pod\'s value winning', () => {
    const result = podDnsConfig(
      pod({ containers: [], dnsConfig: { nameservers: ['10.96.0.10', '10.0.0.2'], searches: ['cluster.local', 'extra.example'], options: [{ name: 'ndots', value: '1' }, { name: 'single-request' }, { name: '' }] } }),
      cluster,
    );
    assert.deepEqual(result.config, {
      servers: ['10.96.0.10', '10.0.0.2'],
      searches: ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example', 'extra.example'],
      options: ['ndots:1', 'single-request'],
    });
    assert.deepEqual(podDnsConfig(pod({ containers: [], dnsPolicy: 'Default', dnsConfig: {} }), cluster).config, parseResolvConf(HOST));
  });
  it('at most 3 nameservers, with the DNSConfigForming warning', () => {
    const result = podDnsConfig(pod({ containers: [], dnsConfig: { nameservers: ['1.0.0.1', '1.0.0.2', '1.0.0.3'] } }), cluster);
    assert.deepEqual(result.config.servers, ['10.96.0.10', '1.0.0.1', '1.0.0.2']);
    assert.deepEqual(result.warnings, [{ reason: 'DNSConfigForming', message: 'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.96.0.10 1.0.0.1 1.0.0.2' }]);
  });
  it('at most 32 search domains and 2048 characters, with the DNSConfigForming warning', () => {
    const many = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
    const result = podDnsConfig(pod({ containers: [], dnsPolicy: 'None', dnsConfig: { searches: many } }), cluster);
    assert.deepEqual(result.config.searches, many.slice(0, 32));
    assert.equal(result.warnings[0]?.reason, 'DNSConfigForming');
    assert.match(result.warnings[0]?.message ?? '', /^Search Line limits were exceeded, some search paths have been omitted, the applied search line is: d0\.example d1\.example/);
    const long = Array.from({ length: 10 }, (_, i) => `${String(i).repeat(250)}.example`);
    const cut = podDnsConfig(pod({ containers: [], dnsPolicy: 'None', dnsConfig: { searches: long } }), cluster);
    assert.ok(cut.config.searches.join(' ').length <= 2048);
    assert.equal(cut.config.searches.length, 7);
  });
  it('a pod without a namespace searches default.svc', () => {
    const p = pod();
    delete p.metadata.namespace;
    assert.equal(podDnsConfig(p, cluster).config.searches[0], 'default.svc.cluster.local');
  });
});

describe('the pod\'s resolv.conf on disk and the sandbox config', () => {
  it('writePodResolvConf writes <podDir>/resolv.conf; readHostResolvConf reads a file, or gives \'\'', async () => {
    const { mkdtemp, readFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { readHostResolvConf, writePodResolvConf } = await import('./dns-config.js');
    const dir = await mkdtemp(join(tmpdir(), 'dns-config-'));
    try {
      await writePodResolvConf(join(dir, 'pods', 'u1'), { servers: ['127.0.0.1'], searches: ['a.svc.cluster.local'], options: ['ndots:5'] });
      const text = await readFile(join(dir, 'pods', 'u1', 'resolv.conf'), 'utf8');
      assert.equal(text, 'search a.svc.cluster.local\nnameserver 127.0.0.1\noptions ndots:5\n');
      assert.equal(readHostResolvConf(join(dir, 'pods', 'u1', 'resolv.conf')), text);
      assert.equal(readHostResolvConf(join(dir, 'missing')), '');
      assert.equal(readHostResolvConf(''), '');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('podSandboxConfig carries the DNS config when the kubelet has DNS options, none otherwise', async () => {
    const { podSandboxConfig } = await import('./sandbox-config.js');
    assert.deepEqual(podSandboxConfig(pod(), 0, '/logs', cluster).dnsConfig, podDnsConfig(pod(), cluster).config);
    assert.equal(podSandboxConfig(pod(), 0, '/logs').dnsConfig, undefined);
  });
});
