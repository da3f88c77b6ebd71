import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { NodeScore } from '../../framework/interfaces.js';
import { NodeInfo } from '../../framework/node-info.js';
import { Code, Status, type PluginStatus } from '../../framework/status.js';
import { PodInfo, type Node, type Pod } from '../../framework/types.js';
import { fakeHandle, makeNode, makeNodeInfos, makePod, type PodOptions } from '../inter-pod-affinity/testing/fake-handle.js';
import { ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH } from './filtering.js';
import { NAME, newPodTopologySpread, PodTopologySpread } from './pod-topology-spread.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const FOO = { foo: 'bar' };

/** n1, n2 in zone a; n3, n4 in zone b; n5 without a zone. */
function zonedNodes(extra: Partial<Record<string, { labels?: Record<string, string>; spec?: Node['spec'] }>> = {}): Node[] {
  const zones: Record<string, string | undefined> = { n1: 'a', n2: 'a', n3: 'b', n4: 'b', n5: undefined };
  return Object.entries(zones).map(([name, zone]) =>
    makeNode(name, { ...(zone === undefined ? {} : { [ZONE]: zone }), ...(extra[name]?.labels ?? {}) }, extra[name]?.spec ?? {}),
  );
}

function spread(overrides: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint {
  return { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: FOO }, ...overrides };
}

function incoming(constraints: TopologySpreadConstraint[], options: PodOptions = {}): Pod {
  return makePod({ labels: FOO, ...options, spec: { ...options.spec, topologySpreadConstraints: constraints } });
}

/** `count` pods labelled foo=bar on each named node. */
function placed(counts: Record<string, number>, options: PodOptions = {}): Pod[] {
  return Object.entries(counts).flatMap(([node, count]) => Array.from({ length: count }, () => makePod({ labels: FOO, ...options, nodeName: node })));
}

function setup(nodes: Node[], pods: Pod[], options: { args?: unknown; objects?: Record<string, KubeObject[]> } = {}): { plugin: PodTopologySpread; infos: NodeInfo[] } {
  const infos = makeNodeInfos(nodes, pods);
  const handle = fakeHandle({ nodes: infos, ...(options.objects === undefined ? {} : { objects: options.objects }) });
  return { plugin: newPodTopologySpread(options.args, handle) as PodTopologySpread, infos };
}

function describeStatus(status: PluginStatus): string {
  return status === undefined ? 'fits' : `${status.codeName()}: ${status.message()}`;
}

function filterAll(plugin: PodTopologySpread, pod: Pod, infos: NodeInfo[], state = new CycleState()): Record<string, string> | 'skip' {
  const outcome = plugin.preFilter(state, pod, infos);
  if (outcome?.status?.code === Code.Skip) return 'skip';
  assert.equal(outcome?.status, undefined, outcome?.status?.message());
  return Object.fromEntries(infos.map((n) => [n.name, describeStatus(plugin.filter(state, pod, n))]));
}

const SKEW = `Unschedulable: ${ERR_REASON_CONSTRAINTS_NOT_MATCH}`;
const LABEL = `UnschedulableAndUnresolvable: ${ERR_REASON_NODE_LABEL_NOT_MATCH}`;

describe('PodTopologySpread', () => {
  it('has upstream name and reasons, and reads the workload informers for default constraints', () => {
    assert.equal(NAME, 'PodTopologySpread');
    assert.equal(ERR_REASON_CONSTRAINTS_NOT_MATCH, "node(s) didn't match pod topology spread constraints");
    assert.equal(ERR_REASON_NODE_LABEL_NOT_MATCH, "node(s) didn't match pod topology spread constraints (missing required label)");
    const handle = fakeHandle();
    assert.equal(newPodTopologySpread(undefined, handle).name, 'PodTopologySpread');
    assert.deepEqual(handle.informers.requested, ['services', 'replicasets', 'statefulsets']);
    const listHandle = fakeHandle();
    newPodTopologySpread({ defaultingType: 'List' }, listHandle);
    assert.deepEqual(listHandle.informers.requested, []);
    assert.throws(() => newPodTopologySpread({ defaultingType: 'Sometimes' }, fakeHandle()), /defaultingType: Unsupported value/);
  });

  describe('Filter', () => {
    it('rejects domains whose skew would exceed maxSkew, and nodes without the topology key', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n1: 2, n2: 1 }));
      // zone a holds 3, zone b 0: placing one more in a gives skew 4.
      assert.deepEqual(filterAll(plugin, incoming([spread()]), infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread({ maxSkew: 4 })]), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('counts the pod itself only when it matches the selector', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n1: 1 }));
      assert.deepEqual(filterAll(plugin, incoming([spread()], { labels: { other: 'x' } }), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread()]), infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('treats the global minimum as 0 while there are fewer domains than minDomains', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n1: 1, n3: 1 }));
      assert.deepEqual(filterAll(plugin, incoming([spread()]), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread({ minDomains: 2 })]), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread({ minDomains: 3 })]), infos), { n1: SKEW, n2: SKEW, n3: SKEW, n4: SKEW, n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread({ minDomains: 3, maxSkew: 2 })]), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('checks every constraint; a node must carry every topology key', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n3: 1 }));
      const constraints = [spread({ maxSkew: 2 }), spread({ topologyKey: HOST })];
      assert.deepEqual(filterAll(plugin, incoming(constraints), infos), { n1: 'fits', n2: 'fits', n3: SKEW, n4: 'fits', n5: LABEL });
    });

    it('nodeAffinityPolicy Honor (the default) counts only nodes the pod could go to; Ignore counts all', () => {
      const nodes = zonedNodes({ n1: { labels: { disk: 'ssd' } }, n2: { labels: { disk: 'ssd' } } });
      const { plugin, infos } = setup(nodes, placed({ n1: 2, n3: 0 }));
      const spec = { nodeSelector: { disk: 'ssd' } };
      // Honor: only zone a is a domain, so its count (2) is the minimum.
      assert.deepEqual(filterAll(plugin, incoming([spread()], { spec }), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread({ nodeAffinityPolicy: 'Ignore' })], { spec }), infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('nodeTaintsPolicy Honor leaves out nodes with untolerated taints; Ignore (the default) counts them', () => {
      const taints = [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }];
      const nodes = zonedNodes({ n3: { spec: { taints } }, n4: { spec: { taints } } });
      const { plugin, infos } = setup(nodes, placed({ n1: 2 }));
      assert.deepEqual(filterAll(plugin, incoming([spread()]), infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
      assert.deepEqual(filterAll(plugin, incoming([spread({ nodeTaintsPolicy: 'Honor' })]), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
      const tolerating = incoming([spread({ nodeTaintsPolicy: 'Honor' })], { spec: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } });
      assert.deepEqual(filterAll(plugin, tolerating, infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('matchLabelKeys narrows the selector to pods with the same values of those keys', () => {
      const pods = [...placed({ n1: 2 }, { labels: { ...FOO, rev: 'v1' } }), ...placed({ n3: 1 }, { labels: { ...FOO, rev: 'v2' } })];
      const { plugin, infos } = setup(zonedNodes(), pods);
      const pod = incoming([spread({ matchLabelKeys: ['rev'] })], { labels: { ...FOO, rev: 'v2' } });
      assert.deepEqual(filterAll(plugin, pod, infos), { n1: 'fits', n2: 'fits', n3: SKEW, n4: SKEW, n5: LABEL });
      const unkeyed = incoming([spread({ matchLabelKeys: ['missing'] })]);
      assert.deepEqual(filterAll(plugin, unkeyed, infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('does not count terminating pods, pods of other namespaces, nor anything for an empty selector', () => {
      const pods = [...placed({ n1: 3 }, { deleting: true }), ...placed({ n2: 3 }, { namespace: 'other' })];
      const { plugin, infos } = setup(zonedNodes(), pods);
      assert.deepEqual(filterAll(plugin, incoming([spread()]), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
      const { plugin: p2, infos: i2 } = setup(zonedNodes(), placed({ n1: 3 }));
      assert.deepEqual(filterAll(p2, incoming([spread({ labelSelector: {} })]), i2), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits', n5: LABEL });
    });

    it('skips a pod with no DoNotSchedule constraints', () => {
      const { plugin, infos } = setup(zonedNodes(), []);
      assert.equal(filterAll(plugin, makePod(), infos), 'skip');
      assert.equal(filterAll(plugin, incoming([spread({ whenUnsatisfiable: 'ScheduleAnyway' })]), infos), 'skip');
    });

    it('reports a selector that does not parse, a missing state and a missing node as errors', () => {
      const { plugin, infos } = setup(zonedNodes(), []);
      const bad = incoming([spread({ labelSelector: { matchExpressions: [{ key: 'a', operator: 'Around' }] } })]);
      const outcome = plugin.preFilter(new CycleState(), bad, infos);
      assert.equal(outcome?.status?.code, Code.Error);
      assert.equal(outcome?.status?.message(), `get constraints from pod: obtaining pod's hard topology spread constraints: "Around" is not a valid pod selector operator`);
      assert.equal(plugin.filter(new CycleState(), bad, infos[0]!)?.message(), 'reading "PreFilterPodTopologySpread" from cycleState: not found');
      const state = new CycleState();
      plugin.preFilter(state, incoming([spread()]), infos);
      assert.equal(plugin.filter(state, incoming([spread()]), new NodeInfo())?.message(), 'node not found');
    });
  });

  describe('PreFilterExtensions', () => {
    it('addPod and removePod move counts and the global minimum, on a cloned state only', () => {
      const pods = placed({ n1: 1, n3: 1 });
      const { plugin, infos } = setup(zonedNodes(), pods);
      const pod = incoming([spread()]);
      const state = new CycleState();
      plugin.preFilter(state, pod, infos);
      const ext = plugin.preFilterExtensions();
      const copy = state.clone();
      assert.equal(ext.addPod(copy, pod, new PodInfo(makePod({ labels: FOO, nodeName: 'n1' })), infos[0]!), undefined);
      // zone a 2, zone b 1: a is out, b still fits.
      assert.equal(describeStatus(plugin.filter(copy, pod, infos[0]!)), SKEW);
      assert.equal(plugin.filter(copy, pod, infos[2]!), undefined);
      assert.equal(plugin.filter(state, pod, infos[0]!), undefined);
      assert.equal(ext.removePod(copy, pod, new PodInfo(pods[1]!), infos[2]!), undefined);
      // zone a 2, zone b 0: the minimum drops to 0.
      assert.equal(describeStatus(plugin.filter(copy, pod, infos[1]!)), SKEW);
      assert.equal(ext.removePod(copy, pod, new PodInfo(pods[0]!), infos[0]!), undefined);
      assert.equal(ext.removePod(copy, pod, new PodInfo(makePod({ labels: FOO, nodeName: 'n1' })), infos[0]!), undefined);
      // Both zones empty again.
      assert.equal(plugin.filter(copy, pod, infos[0]!), undefined);
      assert.equal(plugin.filter(copy, pod, infos[2]!), undefined);
    });

    it('ignores pods of other namespaces, pods the selector does not match, and nodes without the keys', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n3: 1 }));
      const pod = incoming([spread()]);
      const state = new CycleState();
      plugin.preFilter(state, pod, infos);
      const ext = plugin.preFilterExtensions();
      assert.equal(plugin.filter(state, pod, infos[0]!), undefined);
      ext.addPod(state, pod, new PodInfo(makePod({ labels: FOO, namespace: 'other', nodeName: 'n1' })), infos[0]!);
      ext.addPod(state, pod, new PodInfo(makePod({ labels: { x: 'y' }, nodeName: 'n1' })), infos[0]!);
      ext.addPod(state, pod, new PodInfo(makePod({ labels: FOO, nodeName: 'n5' })), infos[4]!);
      ext.addPod(state, pod, new PodInfo(makePod({ labels: FOO })), new NodeInfo());
      // Zone a is still empty.
      assert.equal(plugin.filter(state, pod, infos[0]!), undefined);
    });

    it('is an error without PreFilter state, and a no-op when PreFilter skipped', () => {
      const { plugin, infos } = setup(zonedNodes(), []);
      assert.equal(plugin.preFilterExtensions().addPod(new CycleState(), makePod(), new PodInfo(makePod()), infos[0]!)?.code, Code.Error);
      const skipped = new CycleState();
      skipped.skipFilterPlugins.add(NAME);
      assert.equal(plugin.preFilterExtensions().removePod(skipped, makePod(), new PodInfo(makePod()), infos[0]!), undefined);
    });
  });

  describe('Score', () => {
    function scoreAll(plugin: PodTopologySpread, pod: Pod, feasible: NodeInfo[]): { raw: Record<string, number>; normalized: Record<string, number> } | 'skip' {
      const state = new CycleState();
      const status = plugin.preScore(state, pod, feasible);
      if (status?.code === Code.Skip) return 'skip';
      assert.equal(status, undefined, status?.message());
      const scores: NodeScore[] = feasible.map((n) => {
        const s = plugin.score(state, pod, n);
        assert.ok(!(s instanceof Status), String(s));
        return { name: n.name, score: s as number };
      });
      const raw = Object.fromEntries(scores.map((s) => [s.name, s.score]));
      assert.equal(plugin.scoreExtensions().normalizeScore(state, pod, scores), undefined);
      return { raw, normalized: Object.fromEntries(scores.map((s) => [s.name, s.score])) };
    }

    const soft = (overrides: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => spread({ whenUnsatisfiable: 'ScheduleAnyway', ...overrides });

    it('zone constraint: count × log(domains + 2) + maxSkew − 1, fewer pods scoring higher; nodes without the key score 0', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n1: 2, n2: 1, n3: 1 }));
      // weight log(4): a → 3 × 1.386 = 4.16 → 4, b → 1.39 → 1.
      assert.deepEqual(scoreAll(plugin, incoming([soft()]), infos), {
        raw: { n1: 4, n2: 4, n3: 1, n4: 1, n5: 0 },
        normalized: { n1: 25, n2: 25, n3: 100, n4: 100, n5: 0 },
      });
    });

    it('hostname constraint: counted per node at Score time', () => {
      const nodes = zonedNodes().slice(0, 4);
      const { plugin, infos } = setup(nodes, placed({ n1: 2, n2: 1, n3: 1 }));
      // weight log(4 + 2) = 1.79, plus maxSkew − 1 = 1.
      assert.deepEqual(scoreAll(plugin, incoming([soft({ topologyKey: HOST, maxSkew: 2 })]), infos), {
        raw: { n1: 5, n2: 3, n3: 3, n4: 1 },
        normalized: { n1: 20, n2: 60, n3: 60, n4: 100 },
      });
    });

    it('counts only domains of feasible nodes, over all nodes', () => {
      const { plugin, infos } = setup(zonedNodes(), placed({ n1: 2, n2: 1, n3: 1 }));
      // Only n2 and n4 are feasible; zone a still counts n1's pods.
      assert.deepEqual(scoreAll(plugin, incoming([soft()]), [infos[1]!, infos[3]!]), {
        raw: { n2: 4, n4: 1 },
        normalized: { n2: 25, n4: 100 },
      });
    });

    it('honours nodeAffinityPolicy when counting a domain', () => {
      const nodes = zonedNodes({ n1: { labels: { disk: 'ssd' } }, n3: { labels: { disk: 'ssd' } } });
      const { plugin, infos } = setup(nodes, placed({ n1: 2, n2: 1, n3: 1 }));
      const feasible = [infos[0]!, infos[2]!];
      const spec = { nodeSelector: { disk: 'ssd' } };
      // Honor: zone a counts n1 only (2 × log 4 = 2.77 → 3); Ignore: n1 and n2 (3 × log 4 = 4.16 → 4).
      const honor = scoreAll(plugin, incoming([soft()], { spec }), feasible);
      assert.deepEqual(honor === 'skip' ? honor : honor.raw, { n1: 3, n3: 1 });
      const ignore = scoreAll(plugin, incoming([soft({ nodeAffinityPolicy: 'Ignore' })], { spec }), feasible);
      assert.deepEqual(ignore === 'skip' ? ignore : ignore.raw, { n1: 4, n3: 1 });
    });

    it('gives every node the full score when no pod matches', () => {
      const { plugin, infos } = setup(zonedNodes().slice(0, 4), []);
      const result = scoreAll(plugin, incoming([soft()]), infos);
      assert.deepEqual(result === 'skip' ? result : result.normalized, { n1: 100, n2: 100, n3: 100, n4: 100 });
    });

    it('skips without ScheduleAnyway constraints, without nodes, and reports a missing state', () => {
      const { plugin, infos } = setup(zonedNodes(), []);
      assert.equal(scoreAll(plugin, incoming([spread()]), infos), 'skip');
      assert.equal(plugin.preScore(new CycleState(), incoming([soft()]), [])?.code, Code.Skip);
      assert.equal((plugin.score(new CycleState(), makePod(), infos[0]!) as Status).code, Code.Error);
      assert.equal(plugin.normalizeScore(new CycleState(), makePod(), [])?.code, Code.Error);
      const bad = incoming([soft({ labelSelector: { matchExpressions: [{ key: 'a', operator: 'Around' }] } })]);
      assert.match(plugin.preScore(new CycleState(), bad, infos)?.message() ?? '', /^calculating preScoreState: obtaining pod's soft topology spread constraints: /);
    });
  });

  describe('default constraints', () => {
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } } } };
    const owned = (options: PodOptions = {}): Pod => {
      const pod = makePod({ labels: { app: 'web' }, ...options });
      pod.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs-uid', controller: true }];
      return pod;
    };

    it('System: hostname and zone ScheduleAnyway over the ReplicaSet selector; nodes without a zone are not ignored', () => {
      const pods = [owned({ nodeName: 'n1' }), owned({ nodeName: 'n1' }), owned({ nodeName: 'n3' })];
      const { plugin, infos } = setup(zonedNodes(), pods, { objects: { replicasets: [rs] } });
      const pod = owned();
      assert.equal(filterAll(plugin, pod, infos), 'skip');
      const state = new CycleState();
      assert.equal(plugin.preScore(state, pod, infos), undefined);
      const raw = infos.map((n) => plugin.score(state, pod, n) as number);
      // hostname: weight log(7) = 1.95, +2; zone (3 domains: a, b, and n5's none): weight log(5) = 1.61, +4.
      assert.deepEqual(raw, [Math.round(2 * Math.log(7) + 2 + 2 * Math.log(5) + 4), Math.round(2 + 2 * Math.log(5) + 4), Math.round(Math.log(7) + 2 + Math.log(5) + 4), Math.round(2 + Math.log(5) + 4), 2]);
    });

    it('System: a pod without Services or controller gets no constraints', () => {
      const { plugin, infos } = setup(zonedNodes(), []);
      assert.equal(plugin.preScore(new CycleState(), makePod({ labels: { app: 'web' } }), infos)?.code, Code.Skip);
    });

    it('List: the given constraints over the selector of the Services selecting the pod', () => {
      const services = [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'default' }, spec: { selector: { app: 'db' } } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external', namespace: 'default' }, spec: {} },
      ];
      const args = { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule' }] };
      const web = (nodeName?: string): Pod => makePod({ labels: { app: 'web' }, ...(nodeName === undefined ? {} : { nodeName }) });
      const { plugin, infos } = setup(zonedNodes(), [web('n1'), web('n2')], { args, objects: { services } });
      assert.deepEqual(filterAll(plugin, web(), infos), { n1: SKEW, n2: SKEW, n3: 'fits', n4: 'fits', n5: LABEL });
      assert.equal(filterAll(plugin, makePod({ labels: { app: 'cache' } }), infos), 'skip');
    });
  });
});
