import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { addressRecord, canonicalName, endpointHostname, reverseName, serviceName, serviceRecords, type ServiceEntry } from './records.js';

const D = 'cluster.local';
const brief = (records: ReturnType<typeof serviceRecords>): string[] =>
  records.map((r) => `${r.name} ${r.type} ${'data' in r ? (typeof r.data === 'object' ? JSON.stringify(r.data) : String(r.data)) : ''}`);

describe('record names', () => {
  it('canonicalName lower-cases and drops trailing dots', () => {
    assert.equal(canonicalName('Web.Default.SVC.cluster.local.'), 'web.default.svc.cluster.local');
    assert.equal(serviceName('NS', 'Web', 'Cluster.Local.'), 'web.ns.svc.cluster.local');
  });
  it('endpointHostname is the hostname, else the dashed address', () => {
    assert.equal(endpointHostname({ ip: '10.1.2.3', hostname: 'Pet-0' }), 'pet-0');
    assert.equal(endpointHostname({ ip: '10.1.2.3' }), '10-1-2-3');
    assert.equal(endpointHostname({ ip: '10.1.2.3', hostname: '' }), '10-1-2-3');
    assert.equal(endpointHostname({ ip: 'fd00::1' }), 'fd00--1');
  });
  it('reverseName for IPv4, IPv6 (also ::, embedded IPv4) and non-addresses', () => {
    assert.equal(reverseName('10.96.0.1'), '1.0.96.10.in-addr.arpa');
    assert.equal(reverseName('fd00::1'), `1.${'0.'.repeat(27)}0.0.d.f.ip6.arpa`);
    assert.equal(reverseName('::'), `${'0.'.repeat(32)}ip6.arpa`);
    assert.equal(reverseName('::ffff:1.2.3.4'), reverseName('0:0:0:0:0:ffff:102:304'));
    assert.equal(reverseName('2001:db8::'), `${'0.'.repeat(24)}8.b.d.0.1.0.0.2.ip6.arpa`);
    assert.equal(reverseName('not-an-ip'), undefined);
  });
  it('addressRecord picks A or AAAA, none for a non-address', () => {
    assert.equal(addressRecord('x', '1.2.3.4', 5)?.type, 'A');
    assert.equal(addressRecord('x', '::1', 5)?.type, 'AAAA');
    assert.equal(addressRecord('x', 'None', 5), undefined);
  });
});

describe('serviceRecords', () => {
  it('ClusterIP: A, AAAA, SRV for named ports only, PTR per clusterIP (spec §2.3)', () => {
    const entry: ServiceEntry = {
      kind: 'ClusterIP',
      namespace: 'default',
      name: 'Kubernetes',
      clusterIPs: ['10.96.0.1', 'fd00::1'],
      ports: [
        { name: 'https', protocol: 'TCP', port: 443 },
        { name: '', protocol: 'TCP', port: 80 },
        { name: 'dns', protocol: 'UDP', port: 53 },
      ],
    };
    const records = serviceRecords(entry, D, 5);
    assert.deepEqual(brief(records), [
      'kubernetes.default.svc.cluster.local A 10.96.0.1',
      'kubernetes.default.svc.cluster.local AAAA fd00::1',
      '_https._tcp.kubernetes.default.svc.cluster.local SRV {"priority":0,"weight":100,"port":443,"target":"kubernetes.default.svc.cluster.local"}',
      '_dns._udp.kubernetes.default.svc.cluster.local SRV {"priority":0,"weight":100,"port":53,"target":"kubernetes.default.svc.cluster.local"}',
      '1.0.96.10.in-addr.arpa PTR kubernetes.default.svc.cluster.local',
      `${reverseName('fd00::1')} PTR kubernetes.default.svc.cluster.local`,
    ]);
    assert.ok(records.every((r) => r.type !== 'OPT' && r.ttl === 5));
  });
  it('ClusterIP not yet allocated (or invalid): no records at all', () => {
    assert.deepEqual(serviceRecords({ kind: 'ClusterIP', namespace: 'a', name: 'b', clusterIPs: ['bogus'], ports: [{ name: 'p', protocol: 'TCP', port: 1 }] }, D), []);
  });
  it('the default TTL is 5 s, as CoreDNS', () => {
    const [a] = serviceRecords({ kind: 'ClusterIP', namespace: 'a', name: 'b', clusterIPs: ['1.2.3.4'], ports: [] }, D);
    assert.equal(a?.type === 'OPT' ? undefined : a?.ttl, 5);
  });
  it('headless: A per ready address, hostname records, N×M SRV to hostnames, PTR to hostnames (spec §2.4)', () => {
    const ports = [
      { name: 'http', protocol: 'TCP' as const, port: 8080 },
      { name: '', protocol: 'TCP' as const, port: 9 },
    ];
    const entry: ServiceEntry = {
      kind: 'Headless',
      namespace: 'ns',
      name: 'db',
      endpoints: [
        { ip: '10.0.0.1', hostname: 'db-0', ports },
        { ip: '10.0.0.2', ports },
      ],
    };
    assert.deepEqual(brief(serviceRecords(entry, D)), [
      'db.ns.svc.cluster.local A 10.0.0.1',
      'db-0.db.ns.svc.cluster.local A 10.0.0.1',
      '_http._tcp.db.ns.svc.cluster.local SRV {"priority":0,"weight":50,"port":8080,"target":"db-0.db.ns.svc.cluster.local"}',
      '1.0.0.10.in-addr.arpa PTR db-0.db.ns.svc.cluster.local',
      'db.ns.svc.cluster.local A 10.0.0.2',
      '10-0-0-2.db.ns.svc.cluster.local A 10.0.0.2',
      '_http._tcp.db.ns.svc.cluster.local SRV {"priority":0,"weight":50,"port":8080,"target":"10-0-0-2.db.ns.svc.cluster.local"}',
      '2.0.0.10.in-addr.arpa PTR 10-0-0-2.db.ns.svc.cluster.local',
    ]);
  });
  it('headless: one service-name record per address even when two hostnames share it; IPv6 gives AAAA', () => {
    const entry: ServiceEntry = {
      kind: 'Headless',
      namespace: 'ns',
      name: 'db',
      endpoints: [
        { ip: 'fd00::5', hostname: 'a', ports: [] },
        { ip: 'fd00::5', hostname: 'b', ports: [] },
      ],
    };
    const names = brief(serviceRecords(entry, D)).filter((r) => r.startsWith('db.'));
    assert.deepEqual(names, ['db.ns.svc.cluster.local AAAA fd00::5']);
  });
  it('headless with no ready endpoints: no records (NXDOMAIN, spec §2.4.1); bad addresses are skipped', () => {
    assert.deepEqual(serviceRecords({ kind: 'Headless', namespace: 'ns', name: 'db', endpoints: [] }, D), []);
    assert.deepEqual(serviceRecords({ kind: 'Headless', namespace: 'ns', name: 'db', endpoints: [{ ip: 'x', ports: [] }] }, D), []);
  });
  it('ExternalName: a CNAME to the external name, SRV of named ports to it (spec §2.5)', () => {
    const entry: ServiceEntry = { kind: 'ExternalName', namespace: 'ns', name: 'ext', externalName: 'WWW.Example.com.', ports: [{ name: 'web', protocol: 'TCP', port: 80 }, { name: '', protocol: 'TCP', port: 81 }] };
    assert.deepEqual(brief(serviceRecords(entry, D)), [
      'ext.ns.svc.cluster.local CNAME www.example.com',
      '_web._tcp.ext.ns.svc.cluster.local SRV {"priority":0,"weight":100,"port":80,"target":"www.example.com"}',
    ]);
  });
  it('ExternalName with an empty name: nothing', () => {
    assert.deepEqual(serviceRecords({ kind: 'ExternalName', namespace: 'ns', name: 'ext', externalName: '', ports: [] }, D), []);
  });
  it('another cluster domain', () => {
    const [a] = serviceRecords({ kind: 'ClusterIP', namespace: 'a', name: 'b', clusterIPs: ['1.2.3.4'], ports: [] }, 'k8ts.test');
    assert.equal(a?.name, 'b.a.svc.k8ts.test');
  });
});
