import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HostPortInfo, NodeInfo, nextGeneration, podHostPorts } from './node-info.js';
import { PodInfo, type Node, type Pod } from './types.js';

interface PodOptions {
  cpu?: string;
  memory?: string;
  ports?: Array<{ hostPort?: number; hostIP?: string; protocol?: string }>;
  sidecarPorts?: Array<{ hostPort: number }>;
  initPorts?: Array<{ hostPort: number }>;
  affinity?: 'required-anti' | 'preferred';
}

function makePod(name: string, o: PodOptions = {}): Pod {
  const requests: Record<string, string> = {};
  if (o.cpu !== undefined) requests.cpu = o.cpu;
  if (o.memory !== undefined) requests.memory = o.memory;
  const term = { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      containers: [{ name: 'c', resources: { requests }, ports: (o.ports ?? []).map((p) => ({ containerPort: 80, ...p })) }],
      ...(o.sidecarPorts === undefined && o.initPorts === undefined
        ? {}
        : {
            initContainers: [
              { name: 'sidecar', restartPolicy: 'Always', ports: (o.sidecarPorts ?? []).map((p) => ({ containerPort: 81, ...p })) },
              { name: 'init', ports: (o.initPorts ?? []).map((p) => ({ containerPort: 82, ...p })) },
            ],
          }),
      ...(o.affinity === 'required-anti' ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } } : {}),
      ...(o.affinity === 'preferred' ? { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term }] } } } : {}),
    },
  };
}

function makeNode(name: string, allocatable: Record<string, string>): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { allocatable } };
}

describe('HostPortInfo', () => {
  it('defaults the ip to 0.0.0.0 and the protocol to TCP', () => {
    const h = new HostPortInfo();
    h.add(undefined, undefined, 80);
    h.add('', '', 81);
    assert.ok(h.conflicts('0.0.0.0', 'TCP', 80));
    assert.ok(h.conflicts(undefined, 'TCP', 81));
    assert.ok(!h.conflicts('0.0.0.0', 'UDP', 80));
    assert.equal(h.size, 2);
  });

  it('0.0.0.0 conflicts with the same protocol/port on any ip, and the other way round', () => {
    const h = new HostPortInfo();
    h.add('127.0.0.1', 'TCP', 8080);
    assert.ok(h.conflicts('0.0.0.0', 'TCP', 8080));
    assert.ok(h.conflicts('127.0.0.1', 'TCP', 8080));
    assert.ok(!h.conflicts('127.0.0.2', 'TCP', 8080));
    assert.ok(!h.conflicts('127.0.0.1', 'UDP', 8080));
    assert.ok(!h.conflicts('127.0.0.1', 'TCP', 8081));
    h.add(undefined, 'UDP', 53);
    assert.ok(h.conflicts('10.0.0.1', 'UDP', 53));
    assert.ok(!h.conflicts('10.0.0.1', 'TCP', 53));
  });

  it('never reports a conflict for port 0 or below', () => {
    const h = new HostPortInfo();
    h.add(undefined, 'TCP', 0);
    assert.ok(!h.conflicts(undefined, 'TCP', 0));
    assert.ok(!h.conflicts(undefined, 'TCP', -1));
  });

  it('removes entries (and ignores ones it does not hold); clones independently', () => {
    const h = new HostPortInfo();
    h.add('127.0.0.1', 'TCP', 80);
    h.add('127.0.0.1', 'TCP', 81);
    const copy = h.clone();
    h.remove('127.0.0.1', 'TCP', 80);
    h.remove('127.0.0.9', 'TCP', 80);
    h.remove('127.0.0.1', 'SCTP', 81);
    assert.equal(h.size, 1);
    assert.ok(!h.conflicts('127.0.0.1', 'TCP', 80));
    assert.ok(copy.conflicts('127.0.0.1', 'TCP', 80));
    h.remove('127.0.0.1', undefined, 81);
    assert.equal(h.size, 0);
    assert.ok(!h.conflicts('0.0.0.0', 'TCP', 81));
    assert.equal(copy.size, 2);
  });
});

describe('podHostPorts', () => {
  it('lists containers’ and sidecars’ host ports, not ordinary init containers’ nor container-only ports', () => {
    const ports = podHostPorts(makePod('p', { ports: [{ hostPort: 8080, hostIP: '127.0.0.1', protocol: 'UDP' }, {}], sidecarPorts: [{ hostPort: 9090 }], initPorts: [{ hostPort: 7070 }] }));
    assert.deepEqual(
      ports.map((p) => p.port).sort(),
      [8080, 9090],
    );
    assert.deepEqual(ports.find((p) => p.port === 8080), { ip: '127.0.0.1', protocol: 'UDP', port: 8080 });
  });

  it('is empty for a pod without spec', () => {
    assert.deepEqual(podHostPorts({ metadata: { name: 'p' } } as Pod), []);
  });
});

describe('NodeInfo', () => {
  it('sums requests, non-zero requests and host ports of its pods', () => {
    const info = new NodeInfo(makePod('a', { cpu: '500m', memory: '1Gi', ports: [{ hostPort: 80 }] }), new PodInfo(makePod('b')));
    assert.equal(info.pods.length, 2);
    assert.equal(info.requested.milliCPU, 500);
    assert.equal(info.requested.memory, 1024 ** 3);
    assert.equal(info.nonZeroRequested.milliCPU, 600, 'b counts the 100m default for scoring');
    assert.equal(info.nonZeroRequested.memory, 1024 ** 3 + 200 * 1024 * 1024);
    assert.ok(info.usedPorts.conflicts(undefined, 'TCP', 80));
    assert.equal(info.name, '');
  });

  it('tracks pods with affinity and with required anti-affinity', () => {
    const info = new NodeInfo();
    info.addPod(makePod('anti', { affinity: 'required-anti' }));
    info.addPod(makePod('pref', { affinity: 'preferred' }));
    info.addPod(makePod('none'));
    assert.deepEqual(info.podsWithAffinity.map((p) => p.pod.metadata.name), ['anti', 'pref']);
    assert.deepEqual(info.podsWithRequiredAntiAffinity.map((p) => p.pod.metadata.name), ['anti']);
    assert.ok(info.removePod(makePod('anti')));
    assert.deepEqual(info.podsWithAffinity.map((p) => p.pod.metadata.name), ['pref']);
    assert.deepEqual(info.podsWithRequiredAntiAffinity, []);
  });

  it('removes a pod by uid, undoing what the stored pod added', () => {
    const info = new NodeInfo(makePod('a', { cpu: '1', ports: [{ hostPort: 80 }] }), makePod('b', { cpu: '2' }));
    assert.ok(info.removePod(makePod('a', { cpu: '5' })), 'the stored pod’s requests are subtracted, whatever the argument says');
    assert.equal(info.requested.milliCPU, 2000);
    assert.equal(info.usedPorts.size, 0);
    assert.deepEqual(info.pods.map((p) => p.pod.metadata.name), ['b']);
    assert.equal(info.removePod(makePod('a')), false);
    assert.equal(info.requested.milliCPU, 2000);
  });

  it('bumps its generation on every change', () => {
    const info = new NodeInfo();
    const g0 = info.generation;
    info.setNode(makeNode('n1', { cpu: '4', memory: '8Gi', pods: '110', 'example.com/gpu': '2' }));
    const g1 = info.generation;
    assert.ok(g1 > g0);
    info.addPod(makePod('a'));
    const g2 = info.generation;
    assert.ok(g2 > g1);
    info.removePod(makePod('a'));
    const g3 = info.generation;
    assert.ok(g3 > g2);
    info.removeNode();
    assert.ok(info.generation > g3);
    assert.ok(nextGeneration() > info.generation, 'generations are process-wide and increasing');
  });

  it('reads allocatable from the node', () => {
    const info = new NodeInfo();
    info.setNode(makeNode('n1', { cpu: '3500m', memory: '8Gi', pods: '110', 'example.com/gpu': '2', 'ephemeral-storage': '10Gi' }));
    assert.equal(info.name, 'n1');
    assert.equal(info.allocatable.milliCPU, 3500);
    assert.equal(info.allocatable.memory, 8 * 1024 ** 3);
    assert.equal(info.allocatable.allowedPodNumber, 110);
    assert.equal(info.allocatable.ephemeralStorage, 10 * 1024 ** 3);
    assert.equal(info.allocatable.scalar.get('example.com/gpu'), 2);
    info.removeNode();
    assert.equal(info.node, undefined);
    assert.equal(info.name, '');
  });

  it('clones so that either side can change without touching the other', () => {
    const info = new NodeInfo(makePod('a', { cpu: '1', ports: [{ hostPort: 80 }], affinity: 'required-anti' }));
    info.setNode(makeNode('n1', { cpu: '4', 'example.com/gpu': '1' }));
    info.imageStates.set('nginx', { size: 10, numNodes: 1 });
    const copy = info.clone();
    assert.equal(copy.generation, info.generation);
    assert.equal(copy.node, info.node);
    assert.equal(copy.name, 'n1');
    copy.addPod(makePod('b', { cpu: '2', ports: [{ hostPort: 81 }] }));
    copy.allocatable.scalar.set('example.com/gpu', 5);
    copy.imageStates.delete('nginx');
    assert.equal(info.pods.length, 1);
    assert.equal(info.requested.milliCPU, 1000);
    assert.equal(info.usedPorts.size, 1);
    assert.equal(info.allocatable.scalar.get('example.com/gpu'), 1);
    assert.ok(info.imageStates.has('nginx'));
    info.removePod(makePod('a'));
    assert.equal(copy.podsWithRequiredAntiAffinity.length, 1);
    assert.equal(copy.requested.milliCPU, 3000);
    assert.equal(copy.usedPorts.size, 2);
  });
});
