import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodAffinityTerm, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { NodeScore } from '../../framework/interfaces.js';
import { NodeInfo } from '../../framework/node-info.js';
import { Code, type PluginStatus, Status } from '../../framework/status.js';
import { PodInfo, type Pod } from '../../framework/types.js';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
} from './filtering.js';
import { InterPodAffinity, NAME, newInterPodAffinity } from './inter-pod-affinity.js';
import { fakeHandle, makeNode, makeNodeInfos, makePod } from './testing/fake-handle.js';
import type { KubeObject } from '../../../machinery/meta.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

const nodes = [makeNode('n1', { [ZONE]: 'a' }), makeNode('n2', { [ZONE]: 'a' }), makeNode('n3', { [ZONE]: 'b' }), makeNode('n4')];

function term(labels: Record<string, string>, topologyKey: string, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm {
  return { labelSelector: { matchLabels: labels }, topologyKey, ...extra };
}

function weighted(weight: number, t: PodAffinityTerm): WeightedPodAffinityTerm {
  return { weight, podAffinityTerm: t };
}

interface AffinitySpec {
  readonly affinity?: PodAffinityTerm[];
  readonly anti?: PodAffinityTerm[];
  readonly preferred?: WeightedPodAffinityTerm[];
  readonly preferredAnti?: WeightedPodAffinityTerm[];
}

function podWith(options: { name?: string; namespace?: string; labels?: Record<string, string>; nodeName?: string } & AffinitySpec): Pod {
  return makePod({
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
    spec: {
      affinity: {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: options.affinity ?? [], preferredDuringSchedulingIgnoredDuringExecution: options.preferred ?? [] },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: options.anti ?? [], preferredDuringSchedulingIgnoredDuringExecution: options.preferredAnti ?? [] },
      },
    },
  });
}

function setup(pods: Pod[], options: { objects?: Record<string, KubeObject[]>; args?: unknown } = {}): { plugin: InterPodAffinity; infos: NodeInfo[] } {
  const infos = makeNodeInfos(nodes, pods);
  const handle = fakeHandle({ nodes: infos, ...(options.objects === undefined ? {} : { objects: options.objects }) });
  const plugin = newInterPodAffinity(options.args, handle) as InterPodAffinity;
  return { plugin, infos };
}

/** PreFilter then Filter on every node: node name → status (undefined = fits); 'skip' when PreFilter skipped. */
function filterAll(plugin: InterPodAffinity, pod: Pod, infos: NodeInfo[], state = new CycleState()): Record<string, string> | 'skip' {
  const outcome = plugin.preFilter(state, pod, infos);
  if (outcome?.status?.code === Code.Skip) return 'skip';
  assert.equal(outcome?.status, undefined, outcome?.status?.message());
  return Object.fromEntries(infos.map((n) => [n.name, describeStatus(plugin.filter(state, pod, n))]));
}

function describeStatus(status: PluginStatus): string {
  return status === undefined ? 'fits' : `${status.codeName()}: ${status.message()}`;
}

const AFFINITY = `UnschedulableAndUnresolvable: ${ERR_REASON_AFFINITY_RULES_NOT_MATCH}`;
const ANTI = `Unschedulable: ${ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH}`;
const EXISTING = `Unschedulable: ${ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH}`;

describe('InterPodAffinity', () => {
  it('has upstream name, reason strings, and reads the namespaces informer', () => {
    const handle = fakeHandle();
    const plugin = newInterPodAffinity(undefined, handle);
    assert.equal(plugin.name, 'InterPodAffinity');
    assert.equal(NAME, 'InterPodAffinity');
    assert.deepEqual(handle.informers.requested, ['namespaces']);
    assert.equal(ERR_REASON_AFFINITY_RULES_NOT_MATCH, "node(s) didn't match pod affinity rules");
    assert.equal(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH, "node(s) didn't match pod anti-affinity rules");
    assert.equal(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, "node(s) didn't satisfy existing pods anti-affinity rules");
  });

  it('refuses bad args at construction', () => {
    assert.throws(() => newInterPodAffinity({ hardPodAffinityWeight: 200 }, fakeHandle()), /not in valid range \[0-100\]/);
  });

  it('skips Filter for a pod without required terms when no existing pod has required anti-affinity', () => {
    const { plugin, infos } = setup([makePod({ labels: { app: 'db' }, nodeName: 'n1' })]);
    assert.equal(filterAll(plugin, makePod(), infos), 'skip');
  });

  describe('Filter', () => {
    it('required affinity: only nodes in a topology with a matching pod; a node without the key never fits', () => {
      const { plugin, infos } = setup([makePod({ labels: { app: 'db' }, nodeName: 'n1' })]);
      const pod = podWith({ affinity: [term({ app: 'db' }, ZONE)] });
      assert.deepEqual(filterAll(plugin, pod, infos), { n1: 'fits', n2: 'fits', n3: AFFINITY, n4: AFFINITY });
    });

    it('required affinity: one existing pod must match all terms', () => {
      const pods = [makePod({ labels: { app: 'db' }, nodeName: 'n1' }), makePod({ labels: { tier: 'x' }, nodeName: 'n1' })];
      const { plugin, infos } = setup(pods);
      const pod = podWith({ affinity: [term({ app: 'db' }, ZONE), term({ tier: 'x' }, HOST)] });
      // No single pod matches both terms, and the pod does not match its own terms.
      assert.deepEqual(filterAll(plugin, pod, infos), { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY });
    });

    it('the first pod of a group with affinity to itself may go to any node with the topology keys', () => {
      const { plugin, infos } = setup([]);
      const pod = podWith({ labels: { app: 'web' }, affinity: [term({ app: 'web' }, ZONE)] });
      assert.deepEqual(filterAll(plugin, pod, infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: AFFINITY });
      const stranger = podWith({ labels: { app: 'other' }, affinity: [term({ app: 'web' }, ZONE)] });
      assert.deepEqual(filterAll(plugin, stranger, infos), { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY });
    });

    it('the first-pod exception does not apply once a matching pod exists elsewhere', () => {
      const { plugin, infos } = setup([makePod({ labels: { app: 'web' }, nodeName: 'n3' })]);
      const pod = podWith({ labels: { app: 'web' }, affinity: [term({ app: 'web' }, ZONE)] });
      assert.deepEqual(filterAll(plugin, pod, infos), { n1: AFFINITY, n2: AFFINITY, n3: 'fits', n4: AFFINITY });
    });

    it('required anti-affinity: nodes in a topology holding a matching pod are rejected; nodes without the key fit', () => {
      const { plugin, infos } = setup([makePod({ labels: { app: 'web' }, nodeName: 'n1' })]);
      assert.deepEqual(filterAll(plugin, podWith({ anti: [term({ app: 'web' }, HOST)] }), infos), { n1: ANTI, n2: 'fits', n3: 'fits', n4: 'fits' });
      assert.deepEqual(filterAll(plugin, podWith({ anti: [term({ app: 'web' }, ZONE)] }), infos), { n1: ANTI, n2: ANTI, n3: 'fits', n4: 'fits' });
    });

    it("existing pods' required anti-affinity keeps the incoming pod out of their topology", () => {
      const guard = podWith({ name: 'guard', nodeName: 'n3', anti: [term({ app: 'web' }, ZONE)] });
      const { plugin, infos } = setup([guard]);
      assert.deepEqual(filterAll(plugin, makePod({ labels: { app: 'web' } }), infos), { n1: 'fits', n2: 'fits', n3: EXISTING, n4: 'fits' });
      assert.equal(filterAll(plugin, makePod({ labels: { app: 'db' } }), infos), 'skip');
    });

    it('affinity is checked first, then anti-affinity, then existing anti-affinity', () => {
      const guard = podWith({ name: 'guard', nodeName: 'n1', labels: { app: 'db' }, anti: [term({ app: 'web' }, ZONE)] });
      const { plugin, infos } = setup([guard]);
      const pod = podWith({ labels: { app: 'web' }, affinity: [term({ app: 'db' }, ZONE)], anti: [term({ app: 'db' }, HOST)] });
      assert.deepEqual(filterAll(plugin, pod, infos), { n1: ANTI, n2: EXISTING, n3: AFFINITY, n4: AFFINITY });
    });

    it('matches only the namespaces a term names (by default its own)', () => {
      const { plugin, infos } = setup([makePod({ namespace: 'other', labels: { app: 'db' }, nodeName: 'n1' })]);
      assert.deepEqual(filterAll(plugin, podWith({ anti: [term({ app: 'db' }, HOST)] }), infos), { n1: 'fits', n2: 'fits', n3: 'fits', n4: 'fits' });
      assert.deepEqual(filterAll(plugin, podWith({ anti: [term({ app: 'db' }, HOST, { namespaces: ['other'] })] }), infos), {
        n1: ANTI,
        n2: 'fits',
        n3: 'fits',
        n4: 'fits',
      });
    });

    it("resolves the incoming pod's namespaceSelector through the namespaces informer ({} selects every namespace)", () => {
      const namespaces = [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other', labels: { team: 'x' } } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } },
      ];
      const { plugin, infos } = setup([makePod({ namespace: 'other', labels: { app: 'db' }, nodeName: 'n3' })], { objects: { namespaces } });
      const bySelector = podWith({ affinity: [term({ app: 'db' }, ZONE, { namespaceSelector: { matchLabels: { team: 'x' } } })] });
      assert.deepEqual(filterAll(plugin, bySelector, infos), { n1: AFFINITY, n2: AFFINITY, n3: 'fits', n4: AFFINITY });
      const noMatch = podWith({ affinity: [term({ app: 'db' }, ZONE, { namespaceSelector: { matchLabels: { team: 'y' } } })] });
      assert.deepEqual(filterAll(plugin, noMatch, infos), { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY });
      const everyNamespace = podWith({ anti: [term({ app: 'db' }, ZONE, { namespaceSelector: {} })] });
      assert.deepEqual(filterAll(plugin, everyNamespace, infos), { n1: 'fits', n2: 'fits', n3: ANTI, n4: 'fits' });
    });

    it("matches existing pods' namespaceSelector against the incoming pod's namespace labels", () => {
      const namespaces = [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { env: 'dev' } } },
      ];
      const guard = podWith({ name: 'guard', nodeName: 'n1', anti: [term({ app: 'web' }, HOST, { namespaceSelector: { matchLabels: { env: 'prod' } } })] });
      const { plugin, infos } = setup([guard], { objects: { namespaces } });
      assert.deepEqual(filterAll(plugin, makePod({ namespace: 'prod', labels: { app: 'web' } }), infos), { n1: EXISTING, n2: 'fits', n3: 'fits', n4: 'fits' });
      assert.equal(filterAll(plugin, makePod({ namespace: 'dev', labels: { app: 'web' } }), infos), 'skip');
      assert.equal(filterAll(plugin, makePod({ namespace: 'unknown', labels: { app: 'web' } }), infos), 'skip');
    });

    it('turns down a pod whose terms do not parse, and reports a missing state or node as an error', () => {
      const { plugin, infos } = setup([]);
      const bad = podWith({ affinity: [{ topologyKey: ZONE, labelSelector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] } }] });
      const outcome = plugin.preFilter(new CycleState(), bad, infos);
      assert.equal(outcome?.status?.code, Code.UnschedulableAndUnresolvable);
      assert.match(outcome?.status?.message() ?? '', /^parsing pod: "Near" is not a valid pod selector operator/);
      const noState = plugin.filter(new CycleState(), makePod(), infos[0]!);
      assert.equal(noState?.code, Code.Error);
      assert.equal(noState?.message(), 'reading "PreFilterInterPodAffinity" from cycleState: not found');
      const state = new CycleState();
      plugin.preFilter(state, podWith({ anti: [term({ app: 'x' }, HOST)] }), infos);
      assert.equal(plugin.filter(state, makePod(), new NodeInfo())?.message(), 'node not found');
    });
  });

  describe('PreFilterExtensions', () => {
    it('addPod and removePod update the counts of a cloned state only', () => {
      const web = makePod({ name: 'web', labels: { app: 'web' }, nodeName: 'n1' });
      const { plugin, infos } = setup([web]);
      const pod = podWith({ labels: { app: 'api' }, anti: [term({ app: 'web' }, HOST)] });
      const state = new CycleState();
      plugin.preFilter(state, pod, infos);
      const ext = plugin.preFilterExtensions();
      const copy = state.clone();
      assert.equal(ext.removePod(copy, pod, new PodInfo(web), infos[0]!), undefined);
      assert.equal(plugin.filter(copy, pod, infos[0]!), undefined);
      assert.equal(describeStatus(plugin.filter(state, pod, infos[0]!)), ANTI);
      // A pod added to n3 that the incoming pod avoids, and one whose anti-affinity avoids the incoming pod.
      assert.equal(ext.addPod(copy, pod, new PodInfo(makePod({ labels: { app: 'web' }, nodeName: 'n3' })), infos[2]!), undefined);
      assert.equal(describeStatus(plugin.filter(copy, pod, infos[2]!)), ANTI);
      const guard = podWith({ nodeName: 'n2', anti: [term({ app: 'api' }, ZONE)] });
      assert.equal(ext.addPod(copy, pod, new PodInfo(guard), infos[1]!), undefined);
      assert.equal(describeStatus(plugin.filter(copy, pod, infos[0]!)), EXISTING);
      assert.equal(ext.removePod(copy, pod, new PodInfo(guard), infos[1]!), undefined);
      assert.equal(plugin.filter(copy, pod, infos[0]!), undefined);
    });

    it('addPod of a matching pod satisfies required affinity', () => {
      const { plugin, infos } = setup([makePod({ labels: { app: 'db' }, nodeName: 'n1' })]);
      const pod = podWith({ affinity: [term({ app: 'db' }, ZONE)] });
      const state = new CycleState();
      plugin.preFilter(state, pod, infos);
      assert.equal(describeStatus(plugin.filter(state, pod, infos[2]!)), AFFINITY);
      plugin.preFilterExtensions().addPod(state, pod, new PodInfo(makePod({ labels: { app: 'db' }, nodeName: 'n3' })), infos[2]!);
      assert.equal(plugin.filter(state, pod, infos[2]!), undefined);
    });

    it('is an error without PreFilter state, and a no-op when PreFilter skipped', () => {
      const { plugin, infos } = setup([]);
      const status = plugin.preFilterExtensions().addPod(new CycleState(), makePod(), new PodInfo(makePod()), infos[0]!);
      assert.equal(status?.code, Code.Error);
      const skipped = new CycleState();
      skipped.skipFilterPlugins.add(NAME);
      assert.equal(plugin.preFilterExtensions().removePod(skipped, makePod(), new PodInfo(makePod()), infos[0]!), undefined);
    });
  });

  describe('Score', () => {
    function scoreAll(plugin: InterPodAffinity, pod: Pod, infos: NodeInfo[]): { raw: Record<string, number>; normalized: Record<string, number> } | 'skip' {
      const state = new CycleState();
      const status = plugin.preScore(state, pod, infos);
      if (status?.code === Code.Skip) return 'skip';
      assert.equal(status, undefined, status?.message());
      const scores: NodeScore[] = infos.map((n) => {
        const s = plugin.score(state, pod, n);
        assert.ok(!(s instanceof Status), String(s));
        return { name: n.name, score: s as number };
      });
      const raw = Object.fromEntries(scores.map((s) => [s.name, s.score]));
      assert.equal(plugin.scoreExtensions().normalizeScore(state, pod, scores), undefined);
      return { raw, normalized: Object.fromEntries(scores.map((s) => [s.name, s.score])) };
    }

    it('preferred affinity and anti-affinity of the incoming pod', () => {
      const pods = [makePod({ labels: { app: 'db' }, nodeName: 'n1' }), makePod({ labels: { app: 'cache' }, nodeName: 'n3' })];
      const { plugin, infos } = setup(pods);
      const pod = podWith({ preferred: [weighted(10, term({ app: 'db' }, ZONE))], preferredAnti: [weighted(4, term({ app: 'cache' }, HOST))] });
      assert.deepEqual(scoreAll(plugin, pod, infos), {
        raw: { n1: 10, n2: 10, n3: -4, n4: 0 },
        normalized: { n1: 100, n2: 100, n3: 0, n4: 28 },
      });
    });

    it("existing pods' required affinity (hardPodAffinityWeight) and preferred terms towards the incoming pod", () => {
      const pods = [
        podWith({ nodeName: 'n1', affinity: [term({ app: 'web' }, ZONE)] }),
        podWith({ nodeName: 'n3', preferred: [weighted(3, term({ app: 'web' }, HOST))] }),
        podWith({ nodeName: 'n4', preferredAnti: [weighted(2, term({ app: 'web' }, HOST))] }),
      ];
      const web = makePod({ labels: { app: 'web' } });
      const defaults = setup(pods);
      assert.deepEqual(scoreAll(defaults.plugin, web, defaults.infos), {
        raw: { n1: 1, n2: 1, n3: 3, n4: -2 },
        normalized: { n1: 60, n2: 60, n3: 100, n4: 0 },
      });
      const heavy = setup(pods, { args: { hardPodAffinityWeight: 10 } });
      assert.deepEqual(scoreAll(heavy.plugin, web, heavy.infos), { raw: { n1: 10, n2: 10, n3: 3, n4: -2 }, normalized: { n1: 100, n2: 100, n3: 41, n4: 0 } });
      const none = setup([pods[0]!], { args: { hardPodAffinityWeight: 0 } });
      assert.equal(scoreAll(none.plugin, web, none.infos), 'skip');
    });

    it('skips with no nodes, with nothing to count, and when told to ignore existing pods and the pod has no preferences', () => {
      const pods = [podWith({ nodeName: 'n1', affinity: [term({ app: 'web' }, ZONE)] })];
      const { plugin, infos } = setup(pods);
      assert.equal(plugin.preScore(new CycleState(), makePod({ labels: { app: 'web' } }), [])?.code, Code.Skip);
      assert.equal(scoreAll(plugin, makePod({ labels: { app: 'db' } }), infos), 'skip');
      const ignoring = setup(pods, { args: { ignorePreferredTermsOfExistingPods: true } });
      assert.equal(scoreAll(ignoring.plugin, makePod({ labels: { app: 'web' } }), ignoring.infos), 'skip');
    });

    it('normalizes equal scores to 0 and reports a missing state as an error', () => {
      const { plugin, infos } = setup([makePod({ labels: { app: 'db' }, nodeName: 'n4' })]);
      const pod = podWith({ preferred: [weighted(5, term({ app: 'db' }, ZONE))] });
      // n4 has no zone: the only matching pod counts nowhere, but the pair map stays empty → Skip.
      assert.equal(scoreAll(plugin, pod, infos), 'skip');
      const same = setup([makePod({ labels: { app: 'db' }, nodeName: 'n1' })]);
      const state = new CycleState();
      same.plugin.preScore(state, podWith({ preferred: [weighted(5, term({ app: 'db' }, HOST))] }), same.infos);
      const scores = [{ name: 'x', score: 7 }, { name: 'y', score: 7 }];
      same.plugin.normalizeScore(state, makePod(), scores);
      assert.deepEqual(scores.map((s) => s.score), [0, 0]);
      assert.equal((plugin.score(new CycleState(), pod, infos[0]!) as Status).code, Code.Error);
      assert.equal(plugin.normalizeScore(new CycleState(), pod, [])?.code, Code.Error);
    });
  });
});
