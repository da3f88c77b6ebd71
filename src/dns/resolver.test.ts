import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { serviceRecords } from './records.js';
import { DNS_SCHEMA_VERSION, resolveQuestion, soaRecord, type Resolution } from './resolver.js';
import { ZoneIndex } from './zone-index.js';

const D = 'cluster.local';
const options = { domain: D, ttl: 5 };

function zone(): ZoneIndex {
  const z = new ZoneIndex(() => 1_700_000_000_000);
  z.setService('default/kubernetes', serviceRecords({ kind: 'ClusterIP', namespace: 'default', name: 'kubernetes', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', protocol: 'TCP', port: 443 }] }, D));
  z.setService('ns/db', serviceRecords({ kind: 'Headless', namespace: 'ns', name: 'db', endpoints: [{ ip: '10.0.0.1', hostname: 'db-0', ports: [{ name: 'pg', protocol: 'TCP', port: 5432 }] }, { ip: 'fd00::2', ports: [] }] }, D));
  z.setService('ns/ext', serviceRecords({ kind: 'ExternalName', namespace: 'ns', name: 'ext', externalName: 'www.example.com', ports: [] }, D));
  z.setService('ns/alias', serviceRecords({ kind: 'ExternalName', namespace: 'ns', name: 'alias', externalName: 'kubernetes.default.svc.cluster.local', ports: [] }, D));
  return z;
}

const ask = (name: string, type: string, z = zone()): Resolution => resolveQuestion({ name, type: type as 'A' }, z, options);
const data = (answers: readonly Answer[]): string[] => answers.map((a) => `${a.name} ${a.type} ${a.type === 'OPT' ? '' : typeof a.data === 'string' ? a.data : JSON.stringify(a.data)}`);
function answer(r: Resolution): Extract<Resolution, { kind: 'answer' }> {
  assert.equal(r.kind, 'answer');
  return r as Extract<Resolution, { kind: 'answer' }>;
}

describe('resolveQuestion', () => {
  it('A of a ClusterIP Service, case-insensitive, keeping the asked case and accepting a trailing dot', () => {
    const r = answer(ask('Kubernetes.Default.svc.cluster.local.', 'A'));
    assert.equal(r.rcode, 'NOERROR');
    assert.deepEqual(data(r.answers), ['Kubernetes.Default.svc.cluster.local A 10.96.0.1']);
    assert.deepEqual(r.authorities, []);
  });
  it('AAAA of a Service with only IPv4: NODATA with the SOA', () => {
    const z = zone();
    const r = answer(ask('kubernetes.default.svc.cluster.local', 'AAAA', z));
    assert.equal(r.rcode, 'NOERROR');
    assert.deepEqual(r.answers, []);
    assert.deepEqual(r.authorities, [soaRecord(D, 5, z.serial)]);
  });
  it('SRV of a named port, with the target address in the additional section', () => {
    const r = answer(ask('_https._tcp.kubernetes.default.svc.cluster.local', 'SRV'));
    assert.deepEqual(data(r.answers), ['_https._tcp.kubernetes.default.svc.cluster.local SRV {"priority":0,"weight":100,"port":443,"target":"kubernetes.default.svc.cluster.local"}']);
    assert.deepEqual(data(r.additionals), ['kubernetes.default.svc.cluster.local A 10.96.0.1']);
  });
  it('headless: every ready address; AAAA too; hostname records; SRV to hostnames', () => {
    assert.deepEqual(data(answer(ask('db.ns.svc.cluster.local', 'A')).answers), ['db.ns.svc.cluster.local A 10.0.0.1']);
    assert.deepEqual(data(answer(ask('db.ns.svc.cluster.local', 'AAAA')).answers), ['db.ns.svc.cluster.local AAAA fd00::2']);
    assert.deepEqual(data(answer(ask('db-0.db.ns.svc.cluster.local', 'A')).answers), ['db-0.db.ns.svc.cluster.local A 10.0.0.1']);
    const srv = answer(ask('_pg._tcp.db.ns.svc.cluster.local', 'SRV'));
    assert.deepEqual(data(srv.answers), ['_pg._tcp.db.ns.svc.cluster.local SRV {"priority":0,"weight":50,"port":5432,"target":"db-0.db.ns.svc.cluster.local"}']);
    assert.deepEqual(data(srv.additionals), ['db-0.db.ns.svc.cluster.local A 10.0.0.1']);
  });
  it('ANY: every record of the name', () => {
    assert.equal(answer(ask('db.ns.svc.cluster.local', 'ANY')).answers.length, 2);
  });
  it('ExternalName: the CNAME answers A; a CNAME question gets it too', () => {
    assert.deepEqual(data(answer(ask('ext.ns.svc.cluster.local', 'A')).answers), ['ext.ns.svc.cluster.local CNAME www.example.com']);
    assert.deepEqual(data(answer(ask('ext.ns.svc.cluster.local', 'CNAME')).answers), ['ext.ns.svc.cluster.local CNAME www.example.com']);
  });
  it('a CNAME into the cluster domain is followed', () => {
    assert.deepEqual(data(answer(ask('alias.ns.svc.cluster.local', 'A')).answers), [
      'alias.ns.svc.cluster.local CNAME kubernetes.default.svc.cluster.local',
      'kubernetes.default.svc.cluster.local A 10.96.0.1',
    ]);
  });
  it('a CNAME loop inside the domain ends after the chain limit', () => {
    const z = new ZoneIndex();
    z.setService('a/a', serviceRecords({ kind: 'ExternalName', namespace: 'a', name: 'a', externalName: 'b.a.svc.cluster.local', ports: [] }, D));
    z.setService('a/b', serviceRecords({ kind: 'ExternalName', namespace: 'a', name: 'b', externalName: 'a.a.svc.cluster.local', ports: [] }, D));
    const r = answer(ask('a.a.svc.cluster.local', 'A', z));
    assert.equal(r.rcode, 'NOERROR');
    assert.equal(r.answers.length, 9);
  });
  it('a CNAME to a missing name inside the domain: the CNAME alone', () => {
    const z = new ZoneIndex();
    z.setService('a/a', serviceRecords({ kind: 'ExternalName', namespace: 'a', name: 'a', externalName: 'gone.a.svc.cluster.local', ports: [] }, D));
    assert.deepEqual(data(answer(ask('a.a.svc.cluster.local', 'A', z)).answers), ['a.a.svc.cluster.local CNAME gone.a.svc.cluster.local']);
  });
  it('NXDOMAIN with the SOA for a name in the domain that does not exist', () => {
    const z = zone();
    for (const name of ['nope.default.svc.cluster.local', 'x.kubernetes.default.svc.cluster.local', 'nope.cluster.local', 'a.b.c.cluster.local', 'nons.svc.cluster.local']) {
      const r = answer(ask(name, 'A', z));
      assert.equal(r.rcode, 'NXDOMAIN', name);
      assert.deepEqual(r.answers, []);
      assert.deepEqual(r.authorities, [soaRecord(D, 5, z.serial)]);
    }
  });
  it('empty non-terminals and the zone apex: NOERROR without answers', () => {
    for (const name of ['cluster.local', 'svc.cluster.local', 'default.svc.cluster.local', '_tcp.kubernetes.default.svc.cluster.local', 'pod.cluster.local', 'ns.pod.cluster.local']) {
      const r = answer(ask(name, 'A'));
      assert.equal(r.rcode, 'NOERROR', name);
      assert.deepEqual(r.answers, [], name);
      assert.equal(r.authorities.length, 1, name);
    }
  });
  it('SOA of the apex', () => {
    const z = zone();
    const r = answer(ask('cluster.local', 'SOA', z));
    assert.deepEqual(r.answers, [soaRecord(D, 5, z.serial)]);
    assert.deepEqual(soaRecord(D, 5, 7).data, { mname: 'ns.dns.cluster.local', rname: 'hostmaster.cluster.local', serial: 7, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 });
  });
  it('dns-version TXT (spec §2.2)', () => {
    assert.deepEqual(data(answer(ask('dns-version.cluster.local', 'TXT')).answers), [`dns-version.cluster.local TXT ${DNS_SCHEMA_VERSION}`]);
    assert.deepEqual(answer(ask('dns-version.cluster.local', 'A')).answers, []);
  });
  it('pod records A-B-C-D.NS.pod.DOMAIN (spec §2.6) and dashed IPv6; other pod labels NXDOMAIN', () => {
    assert.deepEqual(data(answer(ask('10-244-0-5.default.pod.cluster.local', 'A')).answers), ['10-244-0-5.default.pod.cluster.local A 10.244.0.5']);
    assert.deepEqual(data(answer(ask('fd00--5.default.pod.cluster.local', 'AAAA')).answers), ['fd00--5.default.pod.cluster.local AAAA fd00::5']);
    assert.equal(answer(ask('not-an-ip.default.pod.cluster.local', 'A')).rcode, 'NXDOMAIN');
    assert.equal(answer(ask('1-2-3-4.x.y.pod.cluster.local', 'A')).rcode, 'NXDOMAIN');
  });
  it('PTR of a clusterIP and of a headless endpoint (IPv4 and IPv6)', () => {
    assert.deepEqual(data(answer(ask('1.0.96.10.in-addr.arpa', 'PTR')).answers), ['1.0.96.10.in-addr.arpa PTR kubernetes.default.svc.cluster.local']);
    assert.deepEqual(data(answer(ask('1.0.0.10.in-addr.arpa', 'PTR')).answers), ['1.0.0.10.in-addr.arpa PTR db-0.db.ns.svc.cluster.local']);
    const six = answer(ask(`2.${'0.'.repeat(27)}0.0.d.f.ip6.arpa`, 'PTR'));
    assert.deepEqual(six.answers.map((a) => (a.type === 'PTR' ? a.data : '')), ['fd00--2.db.ns.svc.cluster.local']);
  });
  it('reverse names the zone does not hold, and names outside the domain, are not ours', () => {
    assert.deepEqual(ask('9.9.9.9.in-addr.arpa', 'PTR'), { kind: 'outside' });
    assert.deepEqual(ask('example.com', 'A'), { kind: 'outside' });
    assert.deepEqual(ask('cluster.local.example.com', 'A'), { kind: 'outside' });
    assert.deepEqual(ask('xcluster.local', 'A'), { kind: 'outside' });
  });
  it('another domain, given with a trailing dot and capitals', () => {
    const z = new ZoneIndex();
    z.setService('a/b', serviceRecords({ kind: 'ClusterIP', namespace: 'a', name: 'b', clusterIPs: ['1.2.3.4'], ports: [] }, 'k8ts.test'));
    assert.equal(answer(resolveQuestion({ name: 'b.a.svc.k8ts.test', type: 'A' }, z, { domain: 'K8ts.Test.', ttl: 5 })).answers.length, 1);
    assert.deepEqual(resolveQuestion({ name: 'b.a.svc.cluster.local', type: 'A' }, z, { domain: 'k8ts.test', ttl: 5 }), { kind: 'outside' });
  });
});

describe('ZoneIndex', () => {
  it('replaces and deletes a Service\'s records, and its empty parents go with them', () => {
    const z = new ZoneIndex(() => 0);
    const serial0 = z.serial;
    z.setService('ns/a', serviceRecords({ kind: 'ClusterIP', namespace: 'ns', name: 'a', clusterIPs: ['1.1.1.1'], ports: [] }, D));
    assert.ok(z.serial > serial0);
    assert.equal(z.size, 1);
    assert.ok(z.hasDescendants('ns.svc.cluster.local'));
    z.setService('ns/a', serviceRecords({ kind: 'ClusterIP', namespace: 'ns', name: 'a', clusterIPs: ['2.2.2.2'], ports: [] }, D));
    assert.deepEqual(z.records('a.ns.svc.cluster.local').map((r) => (r.type === 'A' ? r.data : '')), ['2.2.2.2']);
    assert.deepEqual(z.records('1.1.1.1.in-addr.arpa'), []);
    const serial1 = z.serial;
    z.deleteService('ns/a');
    assert.ok(z.serial > serial1);
    assert.equal(z.size, 0);
    assert.deepEqual(z.records('a.ns.svc.cluster.local'), []);
    assert.equal(z.hasDescendants('ns.svc.cluster.local'), false);
    assert.equal(z.hasDescendants('cluster.local'), false);
    z.deleteService('ns/never'); // unknown: nothing to do
    z.setService('ns/empty', []);
    assert.equal(z.size, 0);
  });
  it('two Services sharing a name (a PTR of one address) keep each other\'s record', () => {
    const z = new ZoneIndex();
    z.setService('ns/a', serviceRecords({ kind: 'Headless', namespace: 'ns', name: 'a', endpoints: [{ ip: '10.0.0.1', ports: [] }] }, D));
    z.setService('ns/b', serviceRecords({ kind: 'Headless', namespace: 'ns', name: 'b', endpoints: [{ ip: '10.0.0.1', ports: [] }] }, D));
    assert.equal(z.records('1.0.0.10.in-addr.arpa').length, 2);
    z.deleteService('ns/a');
    assert.deepEqual(z.records('1.0.0.10.in-addr.arpa').map((r) => (r.type === 'PTR' ? r.data : '')), ['10-0-0-1.b.ns.svc.cluster.local']);
    assert.ok(z.hasDescendants('ns.svc.cluster.local'));
  });
});
