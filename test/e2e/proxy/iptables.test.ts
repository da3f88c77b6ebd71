/**
 * The iptables proxier on real netfilter, inside network namespaces the test
 * creates (a node, three pods, an outside client): connections to a Service's
 * cluster IP and node port reach its ready pods; a pod marked not ready gets
 * no new connection once the sync that says so has resolved; sessionAffinity
 * ClientIP sticks; a Service without endpoints is rejected and a removed one
 * leaves no rule; a restarted proxier rebuilds the very same rules and cleans
 * up after its predecessor; close() leaves nothing of ours.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Endpoint, ProxyState, ServicePort } from '../../../src/proxy/interface.js';
import { servicePortKey } from '../../../src/proxy/interface.js';
import { newIptablesProxier, type IptablesProxier } from '../../../src/proxy/iptables/iptables-proxier.js';
import {
  CLUSTER_CIDR,
  createPodNetwork,
  netnsUnavailableReason,
  savedRules,
  startAnswerer,
  startProber,
  type PodNetwork,
  type Prober,
} from '../testing/netns-pods.js';

const skip = await netnsUnavailableReason();

const POD_PORT = 8080;
const CLUSTER_IP = '10.96.0.10';
const NODE_PORT = 30080;

function service(name: string, over: Partial<ServicePort> = {}): ServicePort {
  const n = { namespace: 'default', name, port: '', protocol: 'TCP' as const };
  return {
    key: servicePortKey(n),
    name: n,
    type: 'NodePort',
    clusterIPs: [CLUSTER_IP],
    port: 80,
    nodePort: NODE_PORT,
    externalIPs: [],
    loadBalancerIPs: [],
    internalTrafficPolicyLocal: false,
    externalTrafficPolicyLocal: false,
    ...over,
  };
}

function state(entries: ReadonlyArray<readonly [ServicePort, readonly Endpoint[]]>): ProxyState {
  return {
    services: new Map(entries.map(([s]) => [s.key, s])),
    endpoints: new Map(entries.map(([s, e]) => [s.key, e])),
    sliceVersions: new Map(),
  };
}

describe('iptables proxier in network namespaces', skip !== undefined ? { skip } : {}, () => {
  let net: PodNetwork;
  let fromNode: Prober;
  let fromClient: Prober;
  let proxier: IptablesProxier;
  const proxiers: IptablesProxier[] = [];
  const newProxier = (): IptablesProxier => {
    const p = newIptablesProxier({ netns: net.node, clusterCIDR: CLUSTER_CIDR });
    proxiers.push(p);
    return p;
  };
  const endpoints = (over: (i: number) => Partial<Endpoint> = () => ({})): Endpoint[] =>
    net.pods.map((p, i) => ({ ip: p.ip, port: POD_PORT, ready: true, serving: true, terminating: false, isLocal: true, nodeName: 'node', ...over(i) }));
  const podOf = (answer: string | undefined): string => answer?.split(' ')[0] ?? '(none)';

  /** Connects until every pod in `want` has answered (at most `max` times); returns who answered each time. */
  async function connectUntilAll(prober: Prober, host: string, port: number, want: readonly string[], max = 300): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < max && !want.every((w) => seen.includes(w)); i++) {
      const r = await prober.connect(host, port);
      assert.equal(r.error, undefined, `connection ${i} to ${host}:${port} failed: ${r.error}`);
      seen.push(podOf(r.answer));
    }
    return seen;
  }

  before(async () => {
    net = await createPodNetwork({ pods: 3 });
    for (const pod of net.pods) await startAnswerer(net, pod, POD_PORT);
    fromNode = await startProber(net, net.node);
    fromClient = await startProber(net, net.client.netns);
    proxier = newProxier();
  });

  after(async () => {
    for (const p of proxiers) await p.close().catch(() => undefined);
    await net?.destroy();
  });

  it('the cluster IP reaches all three pods, from the node itself', async () => {
    const result = await proxier.sync(state([[service('web'), endpoints()]]));
    assert.equal(result.applied, true);
    assert.equal(result.fullSync, true);
    assert.equal(result.endpoints, 3);
    const seen = await connectUntilAll(fromNode, CLUSTER_IP, 80, ['pod-0', 'pod-1', 'pod-2']);
    assert.deepEqual([...new Set(seen)].sort(), ['pod-0', 'pod-1', 'pod-2']);
  });

  it('the node port reaches the pods from outside the node, masqueraded to the node\'s address', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300 && seen.size < 3; i++) {
      const r = await fromClient.connect(net.client.gateway, NODE_PORT);
      assert.equal(r.error, undefined, `connection ${i} failed: ${r.error}`);
      const [pod, source] = (r.answer ?? '').split(' ');
      const podIndex = net.pods.findIndex((p) => p.name === pod);
      assert.ok(podIndex >= 0, `unexpected answer ${r.answer}`);
      // Cluster policy: the pod sees the node's address on its own link, not the client's.
      assert.equal(source, net.pods[podIndex]?.gateway);
      seen.add(pod ?? '');
    }
    assert.equal(seen.size, 3);
    // And from the node to its own address.
    const own = await fromNode.connect(net.client.gateway, NODE_PORT);
    assert.match(own.answer ?? '', /^pod-\d /);
  });

  it('a pod marked not ready gets no new connection once the sync has resolved, and gets them back when ready', async () => {
    const result = await proxier.sync(state([[service('web'), endpoints((i) => (i === 2 ? { ready: false, serving: false } : {}))]]));
    assert.equal(result.applied, true);
    assert.equal(result.fullSync, false);
    assert.equal(result.chainsDeleted, 1); // pod-2's KUBE-SEP chain
    const seen = await connectUntilAll(fromNode, CLUSTER_IP, 80, ['pod-0', 'pod-1']);
    for (let i = 0; i < 30; i++) seen.push(podOf((await fromNode.connect(CLUSTER_IP, 80)).answer));
    assert.ok(!seen.includes('pod-2'), `pod-2 answered after it was marked not ready: ${seen.join(',')}`);

    await proxier.sync(state([[service('web'), endpoints()]]));
    assert.ok((await connectUntilAll(fromNode, CLUSTER_IP, 80, ['pod-2'])).includes('pod-2'));
  });

  it('externalTrafficPolicy Local: the node port reaches only this node\'s pod and keeps the client\'s address', async () => {
    // Only pod-0 counts as on this node; pods 1 and 2 play endpoints on other nodes.
    const local = endpoints((i) => ({ isLocal: i === 0, nodeName: i === 0 ? 'node' : 'other' }));
    await proxier.sync(state([[service('web', { externalTrafficPolicyLocal: true }), local]]));
    for (let i = 0; i < 15; i++) {
      const r = await fromClient.connect(net.client.gateway, NODE_PORT);
      assert.equal(r.answer, `pod-0 ${net.client.ip}`);
    }
    // The cluster IP still reaches every endpoint.
    assert.deepEqual(
      [...new Set(await connectUntilAll(fromNode, CLUSTER_IP, 80, ['pod-0', 'pod-1', 'pod-2']))].sort(),
      ['pod-0', 'pod-1', 'pod-2'],
    );
    await proxier.sync(state([[service('web'), endpoints()]]));
  });

  it('an unchanged state writes nothing', async () => {
    const result = await proxier.sync(state([[service('web'), endpoints()]]));
    assert.equal(result.applied, false);
  });

  it('sessionAffinity ClientIP sends one client to one pod', async () => {
    await proxier.sync(state([[service('web', { sessionAffinityTimeoutSeconds: 10800 }), endpoints()]]));
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add(podOf((await fromNode.connect(CLUSTER_IP, 80)).answer));
    assert.equal(seen.size, 1, `one client reached ${[...seen].join(', ')}`);
    await proxier.sync(state([[service('web'), endpoints()]]));
  });

  it('a restarted proxier rebuilds identical rules and deletes the chains of Services gone while it was down', async () => {
    const current = state([[service('web'), endpoints()]]);
    await proxier.sync(current);
    const before = await savedRules(net, net.node);
    // The old proxier programs one more Service, then "dies" without cleaning up.
    const other = service('other', { clusterIPs: ['10.96.0.11'], nodePort: 30081 });
    await proxier.sync(state([[service('web'), endpoints()], [other, endpoints()]]));
    assert.notEqual(await savedRules(net, net.node), before);

    proxier = newProxier();
    const result = await proxier.sync(current);
    assert.equal(result.fullSync, true);
    assert.equal(result.chainsDeleted, 5); // other's KUBE-SVC, KUBE-EXT and three KUBE-SEP chains
    assert.equal(await savedRules(net, net.node), before);
    assert.match((await fromNode.connect(CLUSTER_IP, 80)).answer ?? '', /^pod-\d /);
  });

  it('a Service without endpoints is rejected, and a removed Service leaves no rule', async () => {
    await proxier.sync(state([[service('web'), []]]));
    const refused = await fromNode.connect(CLUSTER_IP, 80);
    assert.equal(refused.error, 'ECONNREFUSED');
    const refusedNodePort = await fromClient.connect(net.client.gateway, NODE_PORT);
    assert.equal(refusedNodePort.error, 'ECONNREFUSED');
    assert.match(await savedRules(net, net.node), /default\/web has no endpoints/);

    await proxier.sync(state([]));
    const rules = await savedRules(net, net.node);
    assert.doesNotMatch(rules, /KUBE-(SVC|SEP|EXT)-/);
    assert.doesNotMatch(rules, /10\.96\.0\.10/);
  });

  it('close removes every chain and jump rule of ours', async () => {
    await proxier.sync(state([[service('web'), endpoints()]]));
    await proxier.close();
    assert.doesNotMatch(await savedRules(net, net.node), /KUBE-/);
  });
});
