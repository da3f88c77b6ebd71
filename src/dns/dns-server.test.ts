import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import dnsPacket from 'dns-packet';
import { Registry } from 'prom-client';
import { newForwarder, parseUpstream } from './forwarder.js';
import { newDnsMetrics } from './metrics.js';
import { newQueryHandler } from './query-handler.js';
import { serviceRecords } from './records.js';
import { startDnsServer, type DnsServer } from './dns-server.js';
import { ZoneIndex } from './zone-index.js';
import { queryMessage, queryTcp, queryUdp, rawTcp, rawUdp } from './testing/dns-query.js';

const D = 'cluster.local';

describe('DNS server over UDP and TCP', () => {
  const zone = new ZoneIndex();
  zone.setService('default/web', serviceRecords({ kind: 'ClusterIP', namespace: 'default', name: 'web', clusterIPs: ['10.96.0.10'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }, D));
  // 60 addresses: too many for a 512-byte UDP reply.
  zone.setService('default/big', serviceRecords({ kind: 'Headless', namespace: 'default', name: 'big', endpoints: Array.from({ length: 60 }, (_, i) => ({ ip: `10.1.0.${i + 1}`, ports: [] })) }, D));
  const registry = new Registry();
  let server: DnsServer;
  let upstream: DnsServer;
  let forwarding: DnsServer;

  before(async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, handle: newQueryHandler({ zone, domain: D, ttl: 5, metrics: newDnsMetrics(registry, 'dns://127.0.0.1:0') }) });
    // An "upstream" resolver on loopback that serves example.test, and a cluster DNS server that forwards to it.
    const upstreamZone = new ZoneIndex();
    upstreamZone.setService('x/y', serviceRecords({ kind: 'ClusterIP', namespace: 'x', name: 'y', clusterIPs: ['192.0.2.7'], ports: [] }, 'example.test'));
    upstream = await startDnsServer({ host: '127.0.0.1', port: 0, handle: newQueryHandler({ zone: upstreamZone, domain: 'example.test', ttl: 30 }) });
    forwarding = await startDnsServer({
      host: '127.0.0.1',
      port: 0,
      handle: newQueryHandler({ zone, domain: D, ttl: 5, forward: newForwarder({ upstreams: [{ host: '127.0.0.1', port: upstream.port }], timeoutMs: 2000 }) }),
    });
  });
  after(async () => {
    await server.close();
    await forwarding.close();
    await upstream.close();
  });

  it('answers A over UDP, authoritative, with TTL 5 and the RD bit copied', async () => {
    const reply = await queryUdp(server.port, 'web.default.svc.cluster.local', 'A');
    assert.equal(reply.rcode, 'NOERROR');
    assert.equal(reply.flag_aa, true);
    assert.equal(reply.flag_rd, true);
    assert.equal(reply.flag_qr, true);
    assert.deepEqual(reply.answers?.map((a) => [a.name, a.type, a.type === 'A' ? a.data : '', a.type === 'A' ? a.ttl : 0]), [['web.default.svc.cluster.local', 'A', '10.96.0.10', 5]]);
    assert.deepEqual(reply.questions, [{ name: 'web.default.svc.cluster.local', type: 'A', class: 'IN' }]);
  });
  it('answers SRV over TCP, several queries on one connection', async () => {
    const replies = await rawTcp(server.port, [queryMessage('_http._tcp.web.default.svc.cluster.local', 'SRV'), queryMessage('nope.default.svc.cluster.local', 'A')]);
    const [srv, nx] = replies.map((r) => dnsPacket.decode(r) as ReturnType<typeof dnsPacket.decode> & { rcode: string });
    assert.deepEqual(srv?.answers?.map((a) => (a.type === 'SRV' ? a.data : undefined)), [{ priority: 0, weight: 100, port: 80, target: 'web.default.svc.cluster.local' }]);
    assert.equal(srv?.additionals?.length, 1);
    assert.equal(nx?.rcode, 'NXDOMAIN');
    assert.equal(nx?.authorities?.[0]?.type, 'SOA');
  });
  it('refuses names outside the cluster domain when no upstream is configured', async () => {
    const reply = await queryUdp(server.port, 'example.com', 'A');
    assert.equal(reply.rcode, 'REFUSED');
    assert.equal(reply.flag_aa, false);
  });
  it('forwards names outside the domain to a configured upstream (UDP and TCP), and answers its own zone itself', async () => {
    const udp = await queryUdp(forwarding.port, 'y.x.svc.example.test', 'A');
    assert.deepEqual(udp.answers?.map((a) => (a.type === 'A' ? a.data : '')), ['192.0.2.7']);
    const tcp = await queryTcp(forwarding.port, 'y.x.svc.example.test', 'A');
    assert.deepEqual(tcp.answers?.map((a) => (a.type === 'A' ? a.data : '')), ['192.0.2.7']);
    const own = await queryUdp(forwarding.port, 'web.default.svc.cluster.local', 'A');
    assert.equal(own.answers?.length, 1);
  });
  it('SERVFAIL when every upstream fails', async () => {
    const dead = await startDnsServer({ host: '127.0.0.1', port: 0, handle: async () => undefined });
    const broken = await startDnsServer({
      host: '127.0.0.1',
      port: 0,
      handle: newQueryHandler({ zone, domain: D, ttl: 5, forward: newForwarder({ upstreams: [{ host: '127.0.0.1', port: dead.port }], timeoutMs: 100 }) }),
    });
    try {
      assert.equal((await queryUdp(broken.port, 'example.com', 'A')).rcode, 'SERVFAIL');
      assert.equal((await queryTcp(broken.port, 'example.com', 'A')).rcode, 'SERVFAIL');
    } finally {
      await broken.close();
      await dead.close();
    }
  });
  it('truncates a UDP reply over 512 bytes (TC) and sends it whole over TCP; EDNS raises the limit', async () => {
    const udp = await queryUdp(server.port, 'big.default.svc.cluster.local', 'A');
    assert.equal(udp.flag_tc, true);
    assert.deepEqual(udp.answers, []);
    const tcp = await queryTcp(server.port, 'big.default.svc.cluster.local', 'A');
    assert.equal(tcp.flag_tc, false);
    assert.equal(tcp.answers?.length, 60);
    const edns = dnsPacket.decode(
      await rawUdp(server.port, queryMessage('big.default.svc.cluster.local', 'A', { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] })),
    );
    assert.equal(edns.flag_tc, false);
    assert.equal(edns.answers?.length, 60);
    assert.equal(edns.additionals?.find((a) => a.type === 'OPT')?.type, 'OPT');
  });
  it('FORMERR for a malformed message and for two questions; NOTIMP for another opcode; drops a message shorter than a header', async () => {
    const garbage = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
    const formerr = dnsPacket.decode(await rawUdp(server.port, garbage)) as ReturnType<typeof dnsPacket.decode> & { rcode: string };
    assert.equal(formerr.id, 0x1234);
    assert.equal(formerr.rcode, 'FORMERR');
    const two = dnsPacket.encode({ id: 9, type: 'query', questions: [{ name: 'a.cluster.local', type: 'A' }, { name: 'b.cluster.local', type: 'A' }] });
    assert.equal((dnsPacket.decode(await rawUdp(server.port, two)) as { rcode?: string }).rcode, 'FORMERR');
    const notify = queryMessage('web.default.svc.cluster.local', 'A');
    notify.writeUInt16BE((notify.readUInt16BE(2) & ~0x7800) | (4 << 11), 2);
    assert.equal((dnsPacket.decode(await rawUdp(server.port, notify)) as { rcode?: string }).rcode, 'NOTIMP');
    const response = dnsPacket.encode({ id: 3, type: 'response', questions: [{ name: 'a.cluster.local', type: 'A' }] });
    assert.equal((dnsPacket.decode(await rawUdp(server.port, response)) as { rcode?: string }).rcode, 'FORMERR');
    await assert.rejects(rawUdp(server.port, Buffer.from([1, 2, 3]), '127.0.0.1', 200), /no UDP reply/);
  });
  it('counts requests and responses with CoreDNS metric names', async () => {
    const text = await registry.metrics();
    assert.match(text, /coredns_dns_requests_total\{server="dns:\/\/127.0.0.1:0",zone="\.",view="",proto="udp",family="1",type="A"\} \d+/);
    assert.match(text, /coredns_dns_requests_total\{[^}]*proto="tcp"[^}]*type="SRV"\} 1/);
    assert.match(text, /coredns_dns_responses_total\{[^}]*rcode="NXDOMAIN",plugin="kubernetes"\} 1/);
    assert.match(text, /coredns_dns_responses_total\{[^}]*rcode="REFUSED",plugin=""\} 1/);
    assert.match(text, /coredns_dns_request_duration_seconds_bucket/);
  });
  it('a fixed port already taken fails to start; a handler that throws is reported', async () => {
    await assert.rejects(startDnsServer({ host: '127.0.0.1', port: server.port, handle: async () => undefined }), /EADDRINUSE/);
    const errors: unknown[] = [];
    const throwing = await startDnsServer({ host: '127.0.0.1', port: 0, handle: async () => Promise.reject(new Error('boom')), onError: (e) => errors.push(e) });
    try {
      await assert.rejects(rawUdp(throwing.port, queryMessage('a.cluster.local', 'A'), '127.0.0.1', 200));
      assert.deepEqual(errors.map((e) => (e instanceof Error ? e.message : '')), ['boom']);
    } finally {
      await throwing.close();
    }
  });
});

describe('parseUpstream and newForwarder', () => {
  it('parses HOST, HOST:PORT, [v6]:PORT and a bare IPv6 address', () => {
    assert.deepEqual(parseUpstream('1.2.3.4'), { host: '1.2.3.4', port: 53 });
    assert.deepEqual(parseUpstream('127.0.0.1:5353'), { host: '127.0.0.1', port: 5353 });
    assert.deepEqual(parseUpstream('[::1]:5353'), { host: '::1', port: 5353 });
    assert.deepEqual(parseUpstream('::1'), { host: '::1', port: 53 });
    assert.throws(() => parseUpstream('1.2.3.4:99999'), /invalid upstream resolver "1.2.3.4:99999"/);
    assert.throws(() => parseUpstream(''), /invalid upstream/);
  });
  it('needs an upstream', () => {
    assert.throws(() => newForwarder({ upstreams: [] }), /at least one upstream/);
  });
  it('rejects naming every failure (a refused TCP connection)', async () => {
    const idle = await startDnsServer({ host: '127.0.0.1', port: 0, handle: async () => undefined });
    const port = idle.port;
    await idle.close();
    const forward = newForwarder({ upstreams: [parseUpstream(`127.0.0.1:${port}`)], timeoutMs: 200 });
    await assert.rejects(forward(queryMessage('a.example', 'A'), 'tcp'), /every upstream resolver failed: .*ECONNREFUSED/);
  });
});
