import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointChainName } from './chain-names.js';
import { generateRuleSet, type RuleSet, type RuleSetOptions } from './rule-set.js';
import { endpoint, proxyState, servicePort } from './testing/proxy-state.js';
import type { Endpoint, ServicePort } from '../interface.js';

const SVC = 'KUBE-SVC-XPGD46QRK7WJZT7O';
const SVL = 'KUBE-SVL-XPGD46QRK7WJZT7O';
const EXT = 'KUBE-EXT-XPGD46QRK7WJZT7O';
const name = { namespace: 'ns1', name: 'svc1', port: 'p80', protocol: 'TCP' as const };
const sep = (ep: string): string => endpointChainName(name, ep);

function generate(entries: ReadonlyArray<readonly [ServicePort, readonly Endpoint[]]>, options: RuleSetOptions = {}): RuleSet {
  return generateRuleSet(proxyState(entries), options);
}
const nat = (rs: RuleSet, chain: string): readonly string[] | undefined => rs.nat.get(chain);
const filter = (rs: RuleSet, chain: string): readonly string[] | undefined => rs.filter.get(chain);
const serviceChains = (rs: RuleSet): string[] => [...rs.nat.keys()].filter((c) => /^KUBE-(SVC|SVL|EXT|SEP|FW)-/.test(c));

const NODEPORTS_TAIL =
  '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS';

describe('generateRuleSet', () => {
  it('writes the fixed chains of an empty state exactly as upstream', () => {
    const rs = generate([]);
    assert.deepEqual([...rs.filter.keys()], ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-FORWARD', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL']);
    assert.deepEqual([...rs.nat.keys()], ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ']);
    assert.deepEqual(nat(rs, 'KUBE-POSTROUTING'), [
      '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
      '-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000',
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    ]);
    assert.deepEqual(nat(rs, 'KUBE-MARK-MASQ'), ['-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000']);
    assert.deepEqual(nat(rs, 'KUBE-SERVICES'), [NODEPORTS_TAIL]);
    assert.deepEqual(filter(rs, 'KUBE-FORWARD'), [
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP',
      '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT',
      '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
    ]);
    assert.deepEqual(filter(rs, 'KUBE-SERVICES'), []);
    assert.equal(rs.servicePorts, 0);
    assert.equal(rs.endpoints, 0);
  });

  it('sends a cluster IP to its endpoints with probabilities 1/n, 1/(n-1), …, then unconditionally', () => {
    const eps = ['10.180.0.4', '10.180.0.1', '10.180.0.3', '10.180.0.2'].map((ip) => endpoint(ip));
    const rs = generate([[servicePort(), eps]], { clusterCIDR: '10.0.0.0/8' });
    assert.deepEqual(nat(rs, 'KUBE-SERVICES'), [
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j ${SVC}`,
      NODEPORTS_TAIL,
    ]);
    assert.deepEqual(nat(rs, SVC), [
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.2500000000 -j ${sep('10.180.0.1:80')}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -m statistic --mode random --probability 0.3333333333 -j ${sep('10.180.0.2:80')}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.3:80" -m statistic --mode random --probability 0.5000000000 -j ${sep('10.180.0.3:80')}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.4:80" -j ${sep('10.180.0.4:80')}`,
    ]);
    assert.equal(sep('10.180.0.1:80'), 'KUBE-SEP-SXIVWICOYRO3J4NJ');
    assert.deepEqual(nat(rs, 'KUBE-SEP-SXIVWICOYRO3J4NJ'), [
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ',
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80',
    ]);
    assert.equal(serviceChains(rs).length, 5);
    assert.deepEqual(filter(rs, 'KUBE-SERVICES'), []);
    assert.equal(rs.servicePorts, 1);
    assert.equal(rs.endpoints, 4);
  });

  it('writes one unconditional jump for a single endpoint', () => {
    const rs = generate([[servicePort(), [endpoint('10.180.0.1')]]]);
    assert.deepEqual(nat(rs, SVC), [`-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`]);
  });

  it('masquerades every cluster-IP packet with masqueradeAll, and none without a cluster CIDR', () => {
    const all = generate([[servicePort(), [endpoint('10.180.0.1')]]], { masqueradeAll: true });
    assert.equal(nat(all, SVC)?.[0], `-A ${SVC} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-MARK-MASQ`);
    const none = generate([[servicePort(), [endpoint('10.180.0.1')]]]);
    assert.ok(!nat(none, SVC)?.some((r) => r.includes('KUBE-MARK-MASQ')));
  });

  it('uses the masquerade bit it is given', () => {
    const rs = generate([], { masqueradeBit: 0 });
    assert.deepEqual(nat(rs, 'KUBE-MARK-MASQ'), ['-A KUBE-MARK-MASQ -j MARK --or-mark 0x0001']);
    assert.equal(nat(rs, 'KUBE-POSTROUTING')?.[0], '-A KUBE-POSTROUTING -m mark ! --mark 0x0001/0x0001 -j RETURN');
  });

  it('rejects traffic to a Service without endpoints in the filter table, and writes no nat chain for it', () => {
    const svc = servicePort({}, { type: 'NodePort', nodePort: 3001, externalIPs: ['192.168.99.11'], loadBalancerIPs: ['1.2.3.4'] });
    const rs = generate([[svc, [endpoint('10.180.0.1', { ready: false, serving: false })]]]);
    assert.deepEqual(serviceChains(rs), []);
    assert.deepEqual(nat(rs, 'KUBE-SERVICES'), [NODEPORTS_TAIL]);
    assert.deepEqual(nat(rs, 'KUBE-NODEPORTS'), []);
    assert.deepEqual(filter(rs, 'KUBE-SERVICES'), [
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT',
    ]);
    assert.deepEqual(filter(rs, 'KUBE-EXTERNAL-SERVICES'), [
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 192.168.99.11 --dport 80 -j REJECT',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j REJECT',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j REJECT',
    ]);
    assert.equal(rs.endpoints, 0);
  });

  it('a Service with no endpoint entry at all is rejected too', () => {
    const state = proxyState([[servicePort(), []]]);
    const rs = generateRuleSet({ ...state, endpoints: new Map() });
    assert.equal(filter(rs, 'KUBE-SERVICES')?.length, 1);
  });

  it('leaves out endpoints that are not ready, and falls back to serving terminating ones', () => {
    const rs = generate([[servicePort(), [endpoint('10.180.0.1'), endpoint('10.180.0.2', { ready: false, serving: false })]]]);
    assert.deepEqual(nat(rs, SVC), [`-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`]);
    assert.equal(rs.nat.has(sep('10.180.0.2:80')), false);

    const terminating = generate([
      [servicePort(), [endpoint('10.180.0.1', { ready: false, serving: true, terminating: true }), endpoint('10.180.0.2', { ready: false, serving: false, terminating: true })]],
    ]);
    assert.deepEqual(nat(terminating, SVC), [`-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`]);
  });

  it('sticks clients to endpoints with -m recent for sessionAffinity ClientIP', () => {
    const rs = generate([[servicePort({}, { sessionAffinityTimeoutSeconds: 10800 }), [endpoint('10.180.0.1'), endpoint('10.180.0.2')]]]);
    const a = 'KUBE-SEP-SXIVWICOYRO3J4NJ';
    const b = sep('10.180.0.2:80');
    assert.deepEqual(nat(rs, SVC), [
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m recent --name ${a} --rcheck --seconds 10800 --reap -j ${a}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -m recent --name ${b} --rcheck --seconds 10800 --reap -j ${b}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.5000000000 -j ${a}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -j ${b}`,
    ]);
    assert.deepEqual(nat(rs, a), [
      `-A ${a} -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ`,
      `-A ${a} -m comment --comment ns1/svc1:p80 -m recent --name ${a} --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80`,
    ]);
  });

  it('sends node ports, external IPs and load-balancer IPs through KUBE-EXT, which masquerades under the Cluster policy', () => {
    const svc = servicePort({}, { type: 'LoadBalancer', nodePort: 3001, externalIPs: ['192.168.99.11', 'fd00::1'], loadBalancerIPs: ['1.2.3.4'] });
    const rs = generate([[svc, [endpoint('10.180.0.1')]]]);
    assert.deepEqual(nat(rs, 'KUBE-SERVICES'), [
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j ${SVC}`,
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 external IP" -m tcp -p tcp -d 192.168.99.11 --dport 80 -j ${EXT}`,
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j ${EXT}`,
      NODEPORTS_TAIL,
    ]);
    assert.deepEqual(nat(rs, 'KUBE-NODEPORTS'), [`-A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j ${EXT}`]);
    assert.deepEqual(nat(rs, EXT), [
      `-A ${EXT} -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ`,
      `-A ${EXT} -j ${SVC}`,
    ]);
    assert.deepEqual(filter(rs, 'KUBE-EXTERNAL-SERVICES'), []);
  });

  it('externalTrafficPolicy Local: external traffic to this node\'s endpoints, this node\'s and its pods\' traffic to all', () => {
    const svc = servicePort({}, { type: 'NodePort', nodePort: 3001, externalTrafficPolicyLocal: true, healthCheckNodePort: 30000 });
    const local = endpoint('10.180.0.1', { isLocal: true });
    const remote = endpoint('10.180.1.1');
    const rs = generate([[svc, [local, remote]]], { clusterCIDR: '10.0.0.0/8' });
    assert.deepEqual(nat(rs, EXT), [
      `-A ${EXT} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" -s 10.0.0.0/8 -j ${SVC}`,
      `-A ${EXT} -m comment --comment "masquerade LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${EXT} -m comment --comment "route LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j ${SVC}`,
      `-A ${EXT} -j ${SVL}`,
    ]);
    assert.deepEqual(nat(rs, SVL), [`-A ${SVL} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`]);
    assert.equal(nat(rs, SVC)?.length, 3); // masquerade rule + two endpoints
    assert.equal(rs.endpoints, 2);
    assert.deepEqual(filter(rs, 'KUBE-NODEPORTS'), [
      '-A KUBE-NODEPORTS -m comment --comment "ns1/svc1:p80 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT',
    ]);
  });

  it('externalTrafficPolicy Local without a local endpoint drops external traffic but keeps the short-circuit', () => {
    const svc = servicePort({}, { type: 'NodePort', nodePort: 3001, externalTrafficPolicyLocal: true });
    const rs = generate([[svc, [endpoint('10.180.1.1')]]]);
    assert.deepEqual(nat(rs, EXT), [
      `-A ${EXT} -m comment --comment "masquerade LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${EXT} -m comment --comment "route LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j ${SVC}`,
    ]);
    assert.equal(rs.nat.has(SVL), false);
    assert.deepEqual(filter(rs, 'KUBE-EXTERNAL-SERVICES'), [
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j DROP',
    ]);
    assert.deepEqual(filter(rs, 'KUBE-SERVICES'), []);
  });

  it('both policies Local on a NodePort Service still build the cluster chain for the short-circuit', () => {
    const svc = servicePort({}, { type: 'NodePort', nodePort: 3001, externalTrafficPolicyLocal: true, internalTrafficPolicyLocal: true });
    const rs = generate([[svc, [endpoint('10.180.0.1', { isLocal: true }), endpoint('10.180.1.1')]]]);
    assert.equal(nat(rs, 'KUBE-SERVICES')?.[0], `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j ${SVL}`);
    assert.equal(nat(rs, SVC)?.length, 2);
    assert.equal(nat(rs, SVL)?.length, 1);
  });

  it('internalTrafficPolicy Local sends the cluster IP to local endpoints only, and drops it when there are none', () => {
    const svc = servicePort({}, { internalTrafficPolicyLocal: true });
    const rs = generate([[svc, [endpoint('10.180.0.1', { isLocal: true }), endpoint('10.180.1.1')]]]);
    assert.equal(nat(rs, 'KUBE-SERVICES')?.[0], `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j ${SVL}`);
    assert.deepEqual(serviceChains(rs).sort(), [SVL, 'KUBE-SEP-SXIVWICOYRO3J4NJ'].sort());

    const none = generate([[svc, [endpoint('10.180.1.1')]]]);
    assert.deepEqual(serviceChains(none), []);
    assert.deepEqual(filter(none, 'KUBE-SERVICES'), [
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j DROP',
    ]);
  });

  it('matches UDP and SCTP with their own protocol modules', () => {
    const udp = servicePort({ protocol: 'UDP', port: 'dns' }, { port: 53 });
    const rs = generate([[udp, [endpoint('10.180.0.1', { port: 5353 })]]]);
    assert.ok(nat(rs, 'KUBE-SERVICES')?.[0]?.includes('-m udp -p udp -d 172.30.0.41 --dport 53'));
    assert.ok([...rs.nat.values()].flat().some((r) => r.endsWith('-m udp -p udp -j DNAT --to-destination 10.180.0.1:5353')));
    const sctp = generate([[servicePort({ protocol: 'SCTP' }), [endpoint('10.180.0.1')]]]);
    assert.ok(nat(sctp, 'KUBE-SERVICES')?.[0]?.includes('-m sctp -p sctp'));
  });

  it('writes node-port rules for the given node addresses only, and reports those it cannot use', () => {
    const rs = generate([], { nodePortAddresses: ['192.168.0.2', '127.0.0.1', 'fd00::2'] });
    assert.deepEqual(nat(rs, 'KUBE-SERVICES'), [
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.0.2 -j KUBE-NODEPORTS',
    ]);
    assert.equal(rs.problems.length, 2);
    assert.match(rs.problems[0] ?? '', /127\.0\.0\.1/);
  });

  it('programs IPv4 only: a Service without an IPv4 cluster IP is reported, IPv6 endpoints are left out', () => {
    const v6 = servicePort({ name: 'v6' }, { clusterIPs: ['fd00::10'] });
    const dual = servicePort({}, { clusterIPs: ['fd00::11', '172.30.0.41'] });
    const rs = generate([[v6, [endpoint('fd00::1')]], [dual, [endpoint('fd00::2'), endpoint('10.180.0.1')]]]);
    assert.equal(rs.servicePorts, 1);
    assert.equal(rs.endpoints, 1);
    assert.deepEqual(rs.problems, ['ns1/v6:p80/TCP: no IPv4 cluster IP (fd00::10); the iptables proxier programs IPv4 only']);
    assert.ok(nat(rs, 'KUBE-SERVICES')?.[0]?.includes('-d 172.30.0.41'));
  });

  it('names an unnamed port by namespace/name only', () => {
    const rs = generate([[servicePort({ port: '' }), [endpoint('10.180.0.1')]]]);
    assert.ok(nat(rs, 'KUBE-SERVICES')?.[0]?.includes('--comment "ns1/svc1 cluster IP"'));
  });

  it('drops per-endpoint comments above 1000 endpoints, as upstream\'s large-cluster mode', () => {
    const eps = Array.from({ length: 1001 }, (_, i) => endpoint(`10.180.${i >> 8}.${i & 255}`));
    const rs = generate([[servicePort(), eps]]);
    const svcRules = nat(rs, SVC) ?? [];
    assert.equal(svcRules.length, 1001);
    assert.ok(svcRules.every((r) => !r.includes('--comment')));
    assert.deepEqual(nat(rs, 'KUBE-SEP-SXIVWICOYRO3J4NJ'), [
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -s 10.180.0.1 -j KUBE-MARK-MASQ',
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80',
    ]);
    assert.equal(svcRules[0], `-A ${SVC} -m statistic --mode random --probability 0.0009990010 -j ${sep('10.180.0.0:80')}`);
  });

  it('is deterministic: the order of Services and endpoints in the state does not matter', () => {
    const a = servicePort({ name: 'a' }, { clusterIPs: ['172.30.0.1'] });
    const b = servicePort({ name: 'b' }, { clusterIPs: ['172.30.0.2'] });
    const e1 = endpoint('10.180.0.1');
    const e2 = endpoint('10.180.0.2');
    const one = generate([[a, [e1, e2]], [b, [e2]]]);
    const two = generate([[b, [e2]], [a, [e2, e1]]]);
    assert.deepEqual([...one.nat.entries()], [...two.nat.entries()]);
    assert.deepEqual([...one.filter.entries()], [...two.filter.entries()]);
  });
});
