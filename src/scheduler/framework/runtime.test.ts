import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plugins, Profile } from '../config/types.js';
import { fakePlugin, FakeNominator, handleParts, makeNode, makePod, nodeInfoOf } from '../testing/fakes.js';
import { ActionType } from './cluster-event.js';
import { CycleState } from './cycle-state.js';
import type { NodeScore, PluginFactory, QueuedPodInfo, Registry } from './interfaces.js';
import { NodeToStatus } from './node-to-status.js';
import { newFramework } from './runtime.js';
import { Code, isSuccess, skip, Status, unresolvable, unschedulable, waitStatus } from './status.js';
import { PodInfo } from './types.js';

const queueSort = fakePlugin('Sort', { less: (a: QueuedPodInfo, b: QueuedPodInfo) => a.timestamp < b.timestamp });
const binder = fakePlugin('Bind', { bind: async () => undefined });
const base: Registry = { Sort: () => queueSort, Bind: () => binder };

function profile(plugins: Plugins, extra: Partial<Profile> = {}): Profile {
  return { schedulerName: 'default-scheduler', plugins: { ...plugins, multiPoint: { enabled: [{ name: 'Sort' }, { name: 'Bind' }, ...(plugins.multiPoint?.enabled ?? [])], disabled: plugins.multiPoint?.disabled ?? [] } }, ...extra };
}

const names = (...n: string[]): Array<{ name: string }> => n.map((name) => ({ name }));
const filterPlugin = (name: string, verdict: (node: string) => Status | undefined): PluginFactory => () => fakePlugin(name, { filter: (_s: CycleState, _p: unknown, n: { name: string }) => verdict(n.name) });

describe('framework runtime: building', () => {
  it('builds each plugin once even when it serves several extension points, and orders each point as configured', () => {
    let built = 0;
    const both: PluginFactory = () => {
      built++;
      return fakePlugin('Both', { preFilter: () => undefined, filter: () => undefined });
    };
    const registry: Registry = { ...base, Both: both, F1: filterPlugin('F1', () => undefined), F2: filterPlugin('F2', () => undefined) };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('F2', 'Both') }, filter: { enabled: names('F1') } }), handleParts());
    assert.equal(built, 1);
    assert.deepEqual(fwk.pluginNames('filter'), ['F2', 'Both', 'F1']);
    assert.deepEqual(fwk.pluginNames('preFilter'), ['Both']);
    assert.deepEqual(fwk.pluginNames('queueSort'), ['Sort']);
  });

  it('puts an explicit entry that overrides a multiPoint plugin first, and honours disabled names and *', () => {
    const registry: Registry = { ...base, A: filterPlugin('A', () => undefined), B: filterPlugin('B', () => undefined), C: filterPlugin('C', () => undefined) };
    let fwk = newFramework(registry, profile({ multiPoint: { enabled: names('A', 'B') }, filter: { enabled: names('C', 'B') } }), handleParts());
    assert.deepEqual(fwk.pluginNames('filter'), ['B', 'A', 'C']);
    fwk = newFramework(registry, profile({ multiPoint: { enabled: names('A', 'B') }, filter: { disabled: names('A') } }), handleParts());
    assert.deepEqual(fwk.pluginNames('filter'), ['B']);
    fwk = newFramework(registry, profile({ multiPoint: { enabled: names('A', 'B') }, filter: { enabled: names('C'), disabled: names('*') } }), handleParts());
    assert.deepEqual(fwk.pluginNames('filter'), ['C']);
  });

  it('rejects unknown plugins, plugins at points they do not implement, duplicates, and missing queue sort or binder', () => {
    const registry: Registry = { ...base, A: filterPlugin('A', () => undefined) };
    assert.throws(() => newFramework(registry, profile({ filter: { enabled: names('Nope') } }), handleParts()), /plugin "Nope" is not registered/);
    assert.throws(() => newFramework(registry, profile({ score: { enabled: names('A') } }), handleParts()), /plugin "A" does not extend ScorePlugin plugin/);
    assert.throws(() => newFramework(registry, profile({ filter: { enabled: names('A', 'A') } }), handleParts()), /plugin "A" already registered as "FilterPlugin"/);
    assert.throws(() => newFramework(registry, profile({ multiPoint: { enabled: names('A', 'A') } }), handleParts()), /plugin "A" already registered as "FilterPlugin"/);
    assert.throws(() => newFramework(registry, profile({ queueSort: { disabled: names('*') } }), handleParts()), /only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 0/);
    assert.throws(() => newFramework(registry, profile({ bind: { disabled: names('*') } }), handleParts()), /at least one bind plugin is needed/);
  });

  it('wraps a factory error with the plugin name', () => {
    const registry: Registry = { ...base, Bad: () => { throw new Error('args.foo must be positive'); } };
    assert.throws(() => newFramework(registry, profile({ multiPoint: { enabled: names('Bad') } }), handleParts()), /initializing plugin "Bad": args.foo must be positive/);
  });

  it('passes pluginConfig args to the factory and gives the plugin a Handle that reaches the framework', () => {
    let seen: unknown;
    let framework: unknown;
    const registry: Registry = {
      ...base,
      WithArgs: (args, handle) => {
        seen = args;
        return fakePlugin('WithArgs', { filter: () => (framework = handle.framework) && undefined });
      },
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('WithArgs') } }, { pluginConfig: [{ name: 'WithArgs', args: { x: 1 } }] }), handleParts());
    assert.deepEqual(seen, { x: 1 });
    fwk.runFilterPlugins(new CycleState(), makePod('p'), nodeInfoOf(makeNode('n')));
    assert.equal(framework, fwk);
  });

  it('registers every event for rejecting plugins without EnqueueExtensions, and nothing for a plugin that lists none', () => {
    const registry: Registry = {
      ...base,
      Plain: filterPlugin('Plain', () => undefined),
      Quiet: () => fakePlugin('Quiet', { filter: () => undefined, eventsToRegister: () => [] }),
      Loud: () => fakePlugin('Loud', { filter: () => undefined, eventsToRegister: () => [{ event: { resource: 'Node' as const, actionType: ActionType.Add } }] }),
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('Plain', 'Quiet', 'Loud') } }), handleParts());
    const events = fwk.eventsToRegister();
    assert.equal(events.get('Plain')?.[0]?.event.resource, 'WildCard');
    assert.equal(events.has('Quiet'), false);
    assert.equal(events.get('Loud')?.[0]?.event.resource, 'Node');
    assert.equal(events.has('Bind'), false);
  });
});

describe('framework runtime: PreFilter and Filter', () => {
  const nodes = [nodeInfoOf(makeNode('a')), nodeInfoOf(makeNode('b')), nodeInfoOf(makeNode('c'))];
  const narrow = (name: string, only: string[]): PluginFactory => () => fakePlugin(name, { preFilter: () => ({ result: { nodeNames: new Set(only) } }) });

  it('intersects the node sets of PreFilter results', () => {
    const registry: Registry = { ...base, P1: narrow('P1', ['a', 'b']), P2: narrow('P2', ['b', 'c']) };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('P1', 'P2') } }), handleParts());
    const run = fwk.runPreFilterPlugins(new CycleState(), makePod('p'), nodes);
    assert.ok(isSuccess(run.status));
    assert.deepEqual([...run.result!.nodeNames!], ['b']);
    assert.deepEqual([...run.unschedulablePlugins], ['P1', 'P2']);
  });

  it('rejects as UnschedulableAndUnresolvable when the intersection is empty, naming the plugins as upstream', () => {
    let fwk = newFramework({ ...base, P1: narrow('P1', ['a']), P2: narrow('P2', ['c']) }, profile({ multiPoint: { enabled: names('P1', 'P2') } }), handleParts());
    let run = fwk.runPreFilterPlugins(new CycleState(), makePod('p'), nodes);
    assert.equal(run.status?.code, Code.UnschedulableAndUnresolvable);
    assert.equal(run.status?.message(), 'node(s) didn\'t satisfy plugin(s) [P1 P2] simultaneously');
    fwk = newFramework({ ...base, P1: narrow('P1', []) }, profile({ multiPoint: { enabled: names('P1') } }), handleParts());
    run = fwk.runPreFilterPlugins(new CycleState(), makePod('p'), nodes);
    assert.equal(run.status?.message(), 'node(s) didn\'t satisfy plugin P1');
  });

  it('goes on after an Unschedulable PreFilter (preemption needs every state) but stops at an Unresolvable one', () => {
    const calls: string[] = [];
    const pre = (name: string, status: Status | undefined): PluginFactory => () => fakePlugin(name, { preFilter: () => (calls.push(name), status === undefined ? undefined : { status }) });
    let fwk = newFramework({ ...base, U: pre('U', unschedulable('no')), Next: pre('Next', undefined) }, profile({ multiPoint: { enabled: names('U', 'Next') } }), handleParts());
    let run = fwk.runPreFilterPlugins(new CycleState(), makePod('p'), nodes);
    assert.deepEqual(calls, ['U', 'Next']);
    assert.equal(run.status?.code, Code.Unschedulable);
    assert.equal(run.status?.plugin, 'U');
    assert.deepEqual([...run.unschedulablePlugins], ['U']);
    calls.length = 0;
    fwk = newFramework({ ...base, R: pre('R', unresolvable('never')), Next: pre('Next', undefined) }, profile({ multiPoint: { enabled: names('R', 'Next') } }), handleParts());
    run = fwk.runPreFilterPlugins(new CycleState(), makePod('p'), nodes);
    assert.deepEqual(calls, ['R']);
    assert.equal(run.status?.plugin, 'R');
    fwk = newFramework({ ...base, E: pre('E', new Status(Code.Error, ['disk on fire'])) }, profile({ multiPoint: { enabled: names('E') } }), handleParts());
    run = fwk.runPreFilterPlugins(new CycleState(), makePod('p'), nodes);
    assert.equal(run.status?.code, Code.Error);
    assert.equal(run.status?.message(), 'running PreFilter plugin "E": disk on fire');
  });

  it('skips the Filter of a plugin whose PreFilter said Skip', () => {
    const calls: string[] = [];
    const registry: Registry = {
      ...base,
      S: () => fakePlugin('S', { preFilter: () => ({ status: skip() }), filter: () => (calls.push('S'), undefined) }),
      T: () => fakePlugin('T', { preFilter: () => undefined, filter: () => (calls.push('T'), undefined) }),
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('S', 'T') } }), handleParts());
    const state = new CycleState();
    fwk.runPreFilterPlugins(state, makePod('p'), nodes);
    assert.ok(isSuccess(fwk.runFilterPlugins(state, makePod('p'), nodes[0]!)));
    assert.deepEqual(calls, ['T']);
  });

  it('stops at the first rejecting Filter and stamps its name; an Error is wrapped; a throw is an Error', () => {
    const registry: Registry = {
      ...base,
      A: filterPlugin('A', (n) => (n === 'a' ? unschedulable('Insufficient cpu') : undefined)),
      B: filterPlugin('B', (n) => (n === 'b' ? new Status(Code.Error, ['boom']) : undefined)),
      C: filterPlugin('C', (n) => {
        if (n === 'c') throw new Error('bug');
        return undefined;
      }),
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('A', 'B', 'C') } }), handleParts());
    const state = new CycleState();
    const a = fwk.runFilterPlugins(state, makePod('p'), nodes[0]!);
    assert.equal(a?.plugin, 'A');
    assert.equal(a?.message(), 'Insufficient cpu');
    const b = fwk.runFilterPlugins(state, makePod('p'), nodes[1]!);
    assert.equal(b?.code, Code.Error);
    assert.equal(b?.message(), 'running "B" filter plugin: boom');
    const c = fwk.runFilterPlugins(state, makePod('p'), nodes[2]!);
    assert.equal(c?.code, Code.Error);
    assert.match(c!.message(), /bug/);
  });

  it('filters with nominated pods of equal or higher priority added through PreFilterExtensions, then without them', () => {
    const nominator = new FakeNominator();
    const added: string[] = [];
    // Fits only an empty node (as a resource filter would), and counts the pods that AddPod saw.
    const registry: Registry = {
      ...base,
      Room: () =>
        fakePlugin('Room', {
          preFilter: () => undefined,
          preFilterExtensions: () => ({ addPod: (_s: CycleState, _p: unknown, pi: PodInfo) => (added.push(pi.pod.metadata.name ?? ''), undefined), removePod: () => undefined }),
          filter: (_s: CycleState, _p: unknown, ni: { pods: unknown[] }) => (ni.pods.length === 0 ? undefined : unschedulable('Too many pods')),
        }),
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('Room') } }), handleParts({ nominator }));
    const node = nodeInfoOf(makeNode('a'));
    const pod = makePod('p', { priority: 10 });
    nominator.addNominatedPod(new PodInfo(makePod('low', { priority: 5 })), 'a');
    assert.ok(isSuccess(fwk.runFilterPluginsWithNominatedPods(new CycleState(), pod, node)), 'a lower-priority nominated pod does not count');
    nominator.addNominatedPod(new PodInfo(makePod('high', { priority: 10 })), 'a');
    const status = fwk.runFilterPluginsWithNominatedPods(new CycleState(), pod, node);
    assert.equal(status?.message(), 'Too many pods');
    assert.deepEqual(added, ['high']);
    assert.equal(node.pods.length, 0, 'the NodeInfo given is not changed');
    // Second pass: a filter that needs the nominated pod to be there fails without it.
    const needsCompany: Registry = { ...base, Company: () => fakePlugin('Company', { filter: (_s: CycleState, _p: unknown, ni: { pods: unknown[] }) => (ni.pods.length > 0 ? undefined : unschedulable('lonely')) }) };
    const fwk2 = newFramework(needsCompany, profile({ multiPoint: { enabled: names('Company') } }), handleParts({ nominator }));
    assert.equal(fwk2.runFilterPluginsWithNominatedPods(new CycleState(), pod, node)?.message(), 'lonely');
  });
});

describe('framework runtime: PostFilter', () => {
  it('returns the first success, stops at Unresolvable, and otherwise joins the reasons', async () => {
    const post = (name: string, status: Status | undefined, nominated?: string): PluginFactory => () =>
      fakePlugin(name, { postFilter: async () => ({ ...(status === undefined ? {} : { status }), ...(nominated === undefined ? {} : { result: { nominatingInfo: { nominatedNodeName: nominated, mode: 'Override' as const } } }) }) });
    let fwk = newFramework({ ...base, A: post('A', unschedulable('no claims')), B: post('B', unschedulable('preemption: nope.')) }, profile({ multiPoint: { enabled: names('A', 'B') } }), handleParts());
    let out = await fwk.runPostFilterPlugins(new CycleState(), makePod('p'), new NodeToStatus());
    assert.equal(out.status?.message(), 'no claims, preemption: nope.');
    assert.equal(out.status?.plugin, 'A');
    fwk = newFramework({ ...base, A: post('A', unschedulable('x')), B: post('B', undefined, 'n1') }, profile({ multiPoint: { enabled: names('A', 'B') } }), handleParts());
    out = await fwk.runPostFilterPlugins(new CycleState(), makePod('p'), new NodeToStatus());
    assert.ok(isSuccess(out.status));
    assert.equal(out.result?.nominatingInfo?.nominatedNodeName, 'n1');
    fwk = newFramework({ ...base, A: post('A', unresolvable('never')), B: post('B', undefined, 'n1') }, profile({ multiPoint: { enabled: names('A', 'B') } }), handleParts());
    out = await fwk.runPostFilterPlugins(new CycleState(), makePod('p'), new NodeToStatus());
    assert.equal(out.status?.code, Code.UnschedulableAndUnresolvable);
  });
});

describe('framework runtime: scoring', () => {
  const nodes = [nodeInfoOf(makeNode('a')), nodeInfoOf(makeNode('b'))];
  const scorer = (name: string, raw: Record<string, number>, normalize?: (scores: NodeScore[]) => void): PluginFactory => () =>
    fakePlugin(name, {
      score: (_s: CycleState, _p: unknown, n: { name: string }) => raw[n.name] ?? 0,
      ...(normalize === undefined ? {} : { scoreExtensions: () => ({ normalizeScore: (_s: CycleState, _p: unknown, scores: NodeScore[]) => (normalize(scores), undefined) }) }),
    });

  it('normalizes, multiplies by the weight and sums', () => {
    const registry: Registry = {
      ...base,
      Raw: scorer('Raw', { a: 10, b: 20 }, (scores) => {
        const max = Math.max(...scores.map((s) => s.score));
        for (const s of scores) s.score = Math.trunc((s.score * 100) / max);
      }),
      Flat: scorer('Flat', { a: 30, b: 0 }),
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: [{ name: 'Raw', weight: 2 }, { name: 'Flat' }] } }), handleParts());
    assert.equal(fwk.weightOf('Raw'), 2);
    assert.equal(fwk.weightOf('Flat'), 1);
    const { scores, status } = fwk.runScorePlugins(new CycleState(), makePod('p'), nodes);
    assert.ok(isSuccess(status));
    assert.deepEqual(scores.map((s) => [s.name, s.totalScore]), [['a', 130], ['b', 200]]);
    assert.deepEqual(scores[0]!.scores, [{ plugin: 'Raw', score: 100 }, { plugin: 'Flat', score: 30 }]);
  });

  it('takes the weight from the score point over multiPoint', () => {
    const registry: Registry = { ...base, S: scorer('S', {}) };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: [{ name: 'S', weight: 2 }] }, score: { enabled: [{ name: 'S', weight: 5 }] } }), handleParts());
    assert.equal(fwk.weightOf('S'), 5);
  });

  it('skips the Score of a plugin whose PreScore said Skip', () => {
    const registry: Registry = {
      ...base,
      S: () => fakePlugin('S', { preScore: () => skip(), score: () => 50 }),
      T: scorer('T', { a: 1, b: 2 }),
    };
    const fwk = newFramework(registry, profile({ multiPoint: { enabled: names('S', 'T') } }), handleParts());
    const state = new CycleState();
    assert.ok(isSuccess(fwk.runPreScorePlugins(state, makePod('p'), nodes)));
    const { scores } = fwk.runScorePlugins(state, makePod('p'), nodes);
    assert.deepEqual(scores.map((s) => s.totalScore), [1, 2]);
  });

  it('fails on a score out of range after normalizing, and on a plugin error', () => {
    let fwk = newFramework({ ...base, Big: scorer('Big', { a: 101 }) }, profile({ multiPoint: { enabled: names('Big') } }), handleParts());
    let out = fwk.runScorePlugins(new CycleState(), makePod('p'), nodes);
    assert.equal(out.status?.code, Code.Error);
    assert.equal(out.status?.message(), 'plugin "Big" returns an invalid score 101, it should in the range of [0, 100] after normalizing');
    fwk = newFramework({ ...base, E: () => fakePlugin('E', { score: () => new Status(Code.Error, ['nope']) }) }, profile({ multiPoint: { enabled: names('E') } }), handleParts());
    out = fwk.runScorePlugins(new CycleState(), makePod('p'), nodes);
    assert.equal(out.status?.message(), 'plugin "E" failed with: nope');
    // Scored node by node: the first plugin in order that failed is reported, even when a later one failed on an earlier node.
    const failsOn = (name: string, node: string): PluginFactory => () =>
      fakePlugin(name, { score: (_s: CycleState, _p: unknown, n: { name: string }) => (n.name === node ? new Status(Code.Error, [`${name} on ${node}`]) : 1) });
    fwk = newFramework({ ...base, F1: failsOn('F1', nodes[1]!.name), F2: failsOn('F2', nodes[0]!.name) }, profile({ multiPoint: { enabled: names('F1', 'F2') } }), handleParts());
    out = fwk.runScorePlugins(new CycleState(), makePod('p'), nodes);
    assert.equal(out.status?.message(), `plugin "F1" failed with: F1 on ${nodes[1]!.name}`);
    assert.deepEqual(out.scores, []);
    fwk = newFramework({ ...base, P: () => fakePlugin('P', { preScore: () => new Status(Code.Error, ['nope']), score: () => 1 }) }, profile({ multiPoint: { enabled: names('P') } }), handleParts());
    assert.equal(fwk.runPreScorePlugins(new CycleState(), makePod('p'), nodes)?.message(), 'running PreScore plugin "P": nope');
  });
});

describe('framework runtime: Reserve, Permit, Bind', () => {
  it('unreserves in reverse order', () => {
    const calls: string[] = [];
    const res = (name: string): PluginFactory => () => fakePlugin(name, { reserve: () => undefined, unreserve: () => void calls.push(name) });
    const fwk = newFramework({ ...base, R1: res('R1'), R2: res('R2') }, profile({ multiPoint: { enabled: names('R1', 'R2') } }), handleParts());
    fwk.runReservePluginsUnreserve(new CycleState(), makePod('p'), 'n');
    assert.deepEqual(calls, ['R2', 'R1']);
  });

  const permitter = (name: string, status: Status | undefined, timeoutMs = 60_000): PluginFactory => () => fakePlugin(name, { permit: () => ({ ...(status === undefined ? {} : { status }), timeoutMs }) });

  it('lets a waiting pod through once every waiting plugin allows it', async () => {
    const fwk = newFramework({ ...base, W1: permitter('W1', waitStatus()), W2: permitter('W2', waitStatus()) }, profile({ multiPoint: { enabled: names('W1', 'W2') } }), handleParts());
    const pod = makePod('p');
    const status = fwk.runPermitPlugins(new CycleState(), pod, 'n');
    assert.equal(status?.code, Code.Wait);
    assert.equal(status?.message(), 'one or more plugins asked to wait and no plugin rejected pod "p"');
    const waiting = fwk.handle.getWaitingPod(pod.metadata.uid!);
    assert.deepEqual(waiting?.pendingPlugins(), ['W1', 'W2']);
    const result = fwk.waitOnPermit(pod);
    waiting!.allow('W1');
    assert.deepEqual(waiting?.pendingPlugins(), ['W2']);
    waiting!.allow('W2');
    assert.equal(await result, undefined);
    assert.equal(fwk.handle.getWaitingPod(pod.metadata.uid!), undefined);
  });

  it('rejects a waiting pod when a plugin rejects it or its time runs out', async () => {
    const fwk = newFramework({ ...base, W: permitter('W', waitStatus(), 20) }, profile({ multiPoint: { enabled: names('W') } }), handleParts());
    const pod = makePod('p');
    fwk.runPermitPlugins(new CycleState(), pod, 'n');
    fwk.handle.getWaitingPod(pod.metadata.uid!)!.reject('W', 'not today');
    let status = await fwk.waitOnPermit(pod);
    assert.equal(status?.code, Code.Unschedulable);
    assert.equal(status?.plugin, 'W');
    assert.equal(status?.message(), 'not today');
    const late = makePod('late');
    fwk.runPermitPlugins(new CycleState(), late, 'n');
    status = await fwk.waitOnPermit(late);
    assert.equal(status?.message(), 'rejected due to timeout after waiting 20ms at plugin W');
  });

  it('returns a Permit rejection at once, and no waiting pod; a pod that never waited passes waitOnPermit', async () => {
    const fwk = newFramework({ ...base, N: permitter('N', unschedulable('quota')), W: permitter('W', waitStatus()) }, profile({ multiPoint: { enabled: names('N', 'W') } }), handleParts());
    const pod = makePod('p');
    const status = fwk.runPermitPlugins(new CycleState(), pod, 'n');
    assert.equal(status?.plugin, 'N');
    assert.equal(fwk.handle.getWaitingPod(pod.metadata.uid!), undefined);
    assert.equal(await fwk.waitOnPermit(pod), undefined);
  });

  it('binds with the first bind plugin that does not skip', async () => {
    const calls: string[] = [];
    const binderOf = (name: string, status: Status | undefined): PluginFactory => () => fakePlugin(name, { bind: async () => (calls.push(name), status) });
    const registry: Registry = { Sort: base.Sort!, Skipper: binderOf('Skipper', skip()), Binder: binderOf('Binder', undefined), Never: binderOf('Never', undefined) };
    const fwk = newFramework(registry, { schedulerName: 's', plugins: { multiPoint: { enabled: names('Sort', 'Skipper', 'Binder', 'Never') } } }, handleParts());
    assert.ok(isSuccess(await fwk.runBindPlugins(new CycleState(), makePod('p'), 'n')));
    assert.deepEqual(calls, ['Skipper', 'Binder']);
    const allSkip = newFramework({ Sort: base.Sort!, Skipper: binderOf('Skipper', skip()) }, { schedulerName: 's', plugins: { multiPoint: { enabled: names('Sort', 'Skipper') } } }, handleParts());
    assert.equal((await allSkip.runBindPlugins(new CycleState(), makePod('p'), 'n'))?.code, Code.Skip);
    const failing = newFramework({ Sort: base.Sort!, F: binderOf('F', new Status(Code.Error, ['409'])) }, { schedulerName: 's', plugins: { multiPoint: { enabled: names('Sort', 'F') } } }, handleParts());
    const status = await failing.runBindPlugins(new CycleState(), makePod('p'), 'n');
    assert.equal(status?.message(), 'running Bind plugin "F": 409');
    assert.equal(status?.plugin, 'F');
  });
});
