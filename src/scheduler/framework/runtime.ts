/**
 * The framework runtime (upstream's frameworkruntime): one profile's plugins,
 * built once each and run per extension point in the configured order.
 *
 * Building (newFramework): every plugin named anywhere in the profile (an
 * extension point or multiPoint) is constructed once, with its pluginConfig
 * args, so a plugin that implements several extension points is one
 * instance. Then each extension point gets, as upstream orders them: the
 * plugins enabled at that point explicitly that multiPoint also names (the
 * explicit entry overrides), then the multiPoint plugins that implement the
 * point (unless disabled there, by name or '*'), then the other explicit ones.
 * Score weights come from the score point's entries, then multiPoint's
 * (default 1).
 *
 * Running: see the {@link Framework} interface; the statuses and their
 * messages follow upstream's, including "running X plugin" wrappers for errors.
 */
import type { Client } from '../../client/rest/interface.js';
import type { InformerFactory } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Logger } from '../../machinery/logger.js';
import type { PluginRef, PluginSet, Plugins, Profile } from '../config/types.js';
import { ALL_ACTIONS, type ClusterEventWithHint } from './cluster-event.js';
import type { CycleState } from './cycle-state.js';
import {
  MAX_NODE_SCORE,
  MIN_NODE_SCORE,
  type BindPlugin,
  type EnqueueExtensions,
  type FilterPlugin,
  type Framework,
  type Handle,
  type NodePluginScores,
  type NodeScore,
  type PermitPlugin,
  type Plugin,
  type PodNominator,
  type PostBindPlugin,
  type PostFilterOutcome,
  type PostFilterPlugin,
  type PostFilterResult,
  type PreBindPlugin,
  type PreEnqueuePlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreFilterRun,
  type PreScorePlugin,
  type QueueSortPlugin,
  type QueuedPodInfo,
  type Registry,
  type ReservePlugin,
  type ScorePlugin,
  type SharedLister,
  type WaitingPod,
} from './interfaces.js';
import type { NodeInfo } from './node-info.js';
import type { NodeToStatus } from './node-to-status.js';
import { Code, errorStatus, isSuccess, Status, type PluginStatus } from './status.js';
import type { Pod, PodInfo } from './types.js';
import { MAX_PERMIT_TIMEOUT_MS, WaitingPodImpl, WaitingPods } from './waiting-pods.js';

/** Upstream's cap on the sum of the score plugins' weights × MaxNodeScore (math.MaxInt64 there; JS integers stop at 2^53). */
const MAX_TOTAL_SCORE = Number.MAX_SAFE_INTEGER;

/** What every plugin of the profile shares (the Handle minus the framework itself). */
export interface HandleParts {
  readonly snapshot: SharedLister;
  readonly client: Client;
  readonly informers: InformerFactory;
  readonly events: EventRecorder;
  readonly nominator: PodNominator;
  readonly logger: Logger;
  /** Shared by every profile of a scheduler (default: one per framework). */
  readonly waitingPods?: WaitingPods;
}

/** The extension points, in config field name, with the method that marks a plugin as implementing it. */
const EXTENSION_POINTS = [
  ['preEnqueue', 'preEnqueue'],
  ['queueSort', 'less'],
  ['preFilter', 'preFilter'],
  ['filter', 'filter'],
  ['postFilter', 'postFilter'],
  ['preScore', 'preScore'],
  ['score', 'score'],
  ['reserve', 'reserve'],
  ['permit', 'permit'],
  ['preBind', 'preBind'],
  ['bind', 'bind'],
  ['postBind', 'postBind'],
] as const satisfies ReadonlyArray<readonly [keyof Plugins, string]>;

type ExtensionPoint = (typeof EXTENSION_POINTS)[number][0];

/** Upstream's Go interface names, for error messages. */
const POINT_TYPE_NAMES: Readonly<Record<ExtensionPoint, string>> = {
  preEnqueue: 'PreEnqueuePlugin',
  queueSort: 'QueueSortPlugin',
  preFilter: 'PreFilterPlugin',
  filter: 'FilterPlugin',
  postFilter: 'PostFilterPlugin',
  preScore: 'PreScorePlugin',
  score: 'ScorePlugin',
  reserve: 'ReservePlugin',
  permit: 'PermitPlugin',
  preBind: 'PreBindPlugin',
  bind: 'BindPlugin',
  postBind: 'PostBindPlugin',
};

function implementsPoint(plugin: Plugin, method: string): boolean {
  return typeof (plugin as unknown as Record<string, unknown>)[method] === 'function';
}

function hasEnqueueExtensions(plugin: Plugin): plugin is Plugin & EnqueueExtensions {
  return implementsPoint(plugin, 'eventsToRegister');
}

/** Every plugin name the profile names, in first-mention order. */
function pluginsNeeded(plugins: Plugins): string[] {
  const names = new Set<string>();
  for (const ref of plugins.multiPoint?.enabled ?? []) names.add(ref.name);
  for (const [point] of EXTENSION_POINTS) for (const ref of plugins[point]?.enabled ?? []) names.add(ref.name);
  return [...names];
}

/** One extension point's plugin names, in upstream's order (see the module comment); throws for a config error. */
function orderPoint(point: ExtensionPoint, method: string, plugins: Plugins, built: ReadonlyMap<string, Plugin>): string[] {
  const set: PluginSet = plugins[point] ?? {};
  const typeName = POINT_TYPE_NAMES[point];
  const explicit: string[] = [];
  for (const ref of set.enabled ?? []) {
    const plugin = built.get(ref.name);
    if (plugin === undefined) throw new Error(`${typeName} "${ref.name}" does not exist`);
    if (!implementsPoint(plugin, method)) throw new Error(`plugin "${ref.name}" does not extend ${typeName} plugin`);
    if (explicit.includes(ref.name)) throw new Error(`plugin "${ref.name}" already registered as "${typeName}"`);
    explicit.push(ref.name);
  }
  const disabled = new Set((set.disabled ?? []).map((ref) => ref.name));
  if (disabled.has('*')) return explicit;
  const overrides: string[] = [];
  const fromMultiPoint: string[] = [];
  for (const ref of plugins.multiPoint?.enabled ?? []) {
    const plugin = built.get(ref.name);
    if (plugin === undefined) throw new Error(`${typeName} "${ref.name}" does not exist`);
    if (!implementsPoint(plugin, method) || disabled.has(ref.name)) continue;
    if (explicit.includes(ref.name)) {
      if (!overrides.includes(ref.name)) overrides.push(ref.name);
      continue;
    }
    if (fromMultiPoint.includes(ref.name)) throw new Error(`plugin "${ref.name}" already registered as "${typeName}"`);
    fromMultiPoint.push(ref.name);
  }
  const overridesInExplicitOrder = explicit.filter((name) => overrides.includes(name));
  return [...overridesInExplicitOrder, ...fromMultiPoint, ...explicit.filter((name) => !overrides.includes(name))];
}

function scoreWeights(plugins: Plugins, scoreNames: readonly string[]): Map<string, number> {
  const weights = new Map<string, number>();
  const refs: PluginRef[] = [...(plugins.score?.enabled ?? []), ...(plugins.multiPoint?.enabled ?? [])];
  let total = 0;
  for (const ref of refs) {
    if (!scoreNames.includes(ref.name) || weights.has(ref.name)) continue;
    const weight = ref.weight === undefined || ref.weight === 0 ? 1 : ref.weight;
    weights.set(ref.name, weight);
    if (total > MAX_TOTAL_SCORE - weight * MAX_NODE_SCORE) throw new Error('total score of Score plugins could overflow');
    total += weight * MAX_NODE_SCORE;
  }
  for (const name of scoreNames) if (!weights.has(name)) weights.set(name, 1);
  return weights;
}

/** A status stamped with the plugin that returned it. */
function stamped(status: Status, plugin: string): Status {
  return status.plugin === plugin ? status : status.withPlugin(plugin);
}

/** An Error status wrapping another status's message (upstream's fmt.Errorf("running X plugin %q: %w")). */
function wrapError(message: string, status: Status, plugin: string): Status {
  const cause = status.error ?? new Error(status.message());
  return errorStatus(new Error(`${message}: ${status.message()}`, { cause })).withPlugin(plugin);
}

function priorityOf(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

class FrameworkImpl implements Framework {
  readonly profileName: string;
  readonly percentageOfNodesToScore: number | undefined;
  private readonly plugins = new Map<string, Plugin>();
  private preEnqueuePlugins: PreEnqueuePlugin[] = [];
  private queueSortPlugin: QueueSortPlugin | undefined;
  private preFilterPlugins: PreFilterPlugin[] = [];
  private filterPlugins: FilterPlugin[] = [];
  private postFilterPlugins: PostFilterPlugin[] = [];
  private preScorePlugins: PreScorePlugin[] = [];
  private scorePlugins: ScorePlugin[] = [];
  private reservePlugins: ReservePlugin[] = [];
  private permitPlugins: PermitPlugin[] = [];
  private preBindPlugins: PreBindPlugin[] = [];
  private bindPlugins: BindPlugin[] = [];
  private postBindPlugins: PostBindPlugin[] = [];
  private weights = new Map<string, number>();
  private readonly events = new Map<string, readonly ClusterEventWithHint[]>();
  readonly waitingPods: WaitingPods;
  readonly handle: Handle;

  constructor(
    registry: Registry,
    profile: Profile,
    private readonly parts: HandleParts,
  ) {
    this.profileName = profile.schedulerName;
    this.percentageOfNodesToScore = profile.percentageOfNodesToScore === 0 ? undefined : profile.percentageOfNodesToScore;
    this.waitingPods = parts.waitingPods ?? new WaitingPods();
    const waitingPods = this.waitingPods;
    const framework = this as Framework;
    this.handle = {
      snapshot: parts.snapshot,
      client: parts.client,
      informers: parts.informers,
      events: parts.events,
      nominator: parts.nominator,
      logger: parts.logger,
      framework,
      getWaitingPod: (uid: string): WaitingPod | undefined => waitingPods.get(uid),
    };
    const plugins: Plugins = profile.plugins ?? {};
    const args = new Map<string, unknown>();
    for (const pc of profile.pluginConfig ?? []) args.set(pc.name, pc.args);
    for (const name of pluginsNeeded(plugins)) {
      const factory = registry[name];
      if (factory === undefined) throw new Error(`plugin "${name}" is not registered (profile "${profile.schedulerName}")`);
      let plugin: Plugin;
      try {
        plugin = factory(args.get(name), this.handle);
      } catch (e: unknown) {
        throw new Error(`initializing plugin "${name}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      this.plugins.set(name, plugin);
    }
    const byPoint = new Map<ExtensionPoint, Plugin[]>();
    for (const [point, method] of EXTENSION_POINTS) {
      byPoint.set(point, orderPoint(point, method, plugins, this.plugins).map((name) => this.plugins.get(name)!));
    }
    const get = <T>(point: ExtensionPoint): T[] => byPoint.get(point) as T[];
    this.preEnqueuePlugins = get('preEnqueue');
    const queueSort = get<QueueSortPlugin>('queueSort');
    if (queueSort.length !== 1) {
      throw new Error(`only one queue sort plugin required for profile with scheduler name "${profile.schedulerName}", but got ${queueSort.length}`);
    }
    this.queueSortPlugin = queueSort[0];
    this.preFilterPlugins = get('preFilter');
    this.filterPlugins = get('filter');
    this.postFilterPlugins = get('postFilter');
    this.preScorePlugins = get('preScore');
    this.scorePlugins = get('score');
    this.reservePlugins = get('reserve');
    this.permitPlugins = get('permit');
    this.preBindPlugins = get('preBind');
    this.bindPlugins = get('bind');
    this.postBindPlugins = get('postBind');
    if (this.bindPlugins.length === 0) throw new Error(`at least one bind plugin is needed for profile with scheduler name "${profile.schedulerName}"`);
    this.weights = scoreWeights(plugins, this.scorePlugins.map((p) => p.name));
    this.fillEvents();
  }

  /** Upstream's fillEventToPluginMap: plugins that can reject a pod register events; one that declares none gets every event. */
  private fillEvents(): void {
    const rejecting = new Set<Plugin>([...this.preEnqueuePlugins, ...this.preFilterPlugins, ...this.filterPlugins, ...this.reservePlugins, ...this.permitPlugins]);
    for (const plugin of rejecting) {
      if (!hasEnqueueExtensions(plugin)) {
        this.events.set(plugin.name, [{ event: { resource: 'WildCard', actionType: ALL_ACTIONS } }]);
        continue;
      }
      const events = plugin.eventsToRegister();
      if (events.length > 0) this.events.set(plugin.name, events);
    }
  }

  /** The score weight of a plugin (tests). */
  weightOf(name: string): number | undefined {
    return this.weights.get(name);
  }

  /** The plugin names of an extension point, in order (tests, debugging). */
  pluginNames(point: ExtensionPoint): string[] {
    const lists: Record<ExtensionPoint, readonly Plugin[]> = {
      preEnqueue: this.preEnqueuePlugins,
      queueSort: this.queueSortPlugin === undefined ? [] : [this.queueSortPlugin],
      preFilter: this.preFilterPlugins,
      filter: this.filterPlugins,
      postFilter: this.postFilterPlugins,
      preScore: this.preScorePlugins,
      score: this.scorePlugins,
      reserve: this.reservePlugins,
      permit: this.permitPlugins,
      preBind: this.preBindPlugins,
      bind: this.bindPlugins,
      postBind: this.postBindPlugins,
    };
    return lists[point].map((p) => p.name);
  }

  queueSortLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    return this.queueSortPlugin!.less(a, b);
  }

  runPreEnqueuePlugins(pod: Pod): PluginStatus {
    for (const pl of this.preEnqueuePlugins) {
      const status = safe(() => pl.preEnqueue(pod));
      if (isSuccess(status)) continue;
      if (!status!.isRejected()) return wrapError(`running PreEnqueue plugin "${pl.name}"`, status!, pl.name);
      return stamped(status!, pl.name);
    }
    return undefined;
  }

  runPreFilterPlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PreFilterRun {
    let result: PreFilterResult | undefined;
    const pluginsWithNodes: string[] = [];
    let returnStatus: Status | undefined;
    const rejectors = new Set<string>();
    state.skipFilterPlugins.clear();
    if (this.activeFiltersState === state) this.activeFiltersState = undefined;
    for (const pl of this.preFilterPlugins) {
      let outcome;
      try {
        outcome = pl.preFilter(state, pod, nodes);
      } catch (e: unknown) {
        outcome = { status: errorStatus(e) };
      }
      const status = outcome?.status;
      if (status?.code === Code.Skip) {
        state.skipFilterPlugins.add(pl.name);
        continue;
      }
      if (!isSuccess(status)) {
        const s = stamped(status!, pl.name);
        if (s.code === Code.UnschedulableAndUnresolvable) return { status: s, unschedulablePlugins: new Set([pl.name]) };
        if (s.code === Code.Unschedulable || s.code === Code.Pending) {
          // Preemption will run later in this cycle, so every PreFilter must still run (upstream issue 119770).
          returnStatus ??= s;
          rejectors.add(pl.name);
          continue;
        }
        return { status: wrapError(`running PreFilter plugin "${pl.name}"`, s, pl.name), unschedulablePlugins: new Set() };
      }
      const r = outcome?.result;
      if (r?.nodeNames === undefined) continue;
      pluginsWithNodes.push(pl.name);
      result = { nodeNames: result?.nodeNames === undefined ? new Set(r.nodeNames) : intersect(result.nodeNames, r.nodeNames) };
      if (result.nodeNames!.size === 0) {
        const message =
          pluginsWithNodes.length === 1 ? `node(s) didn't satisfy plugin ${pluginsWithNodes[0]}` : `node(s) didn't satisfy plugin(s) [${pluginsWithNodes.join(' ')}] simultaneously`;
        return { result, status: new Status(Code.UnschedulableAndUnresolvable, [message]), unschedulablePlugins: new Set([...rejectors, ...pluginsWithNodes]) };
      }
    }
    return {
      ...(result === undefined ? {} : { result }),
      status: returnStatus,
      unschedulablePlugins: new Set([...rejectors, ...pluginsWithNodes]),
    };
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): PluginStatus {
    for (const pl of this.preFilterPlugins) {
      if (state.skipFilterPlugins.has(pl.name)) continue;
      const ext = pl.preFilterExtensions?.();
      if (ext === undefined) continue;
      const status = safe(() => ext.addPod(state, podToSchedule, podInfoToAdd, nodeInfo));
      if (!isSuccess(status)) return wrapError(`running AddPod on PreFilter plugin "${pl.name}"`, status!, pl.name);
    }
    return undefined;
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): PluginStatus {
    for (const pl of this.preFilterPlugins) {
      if (state.skipFilterPlugins.has(pl.name)) continue;
      const ext = pl.preFilterExtensions?.();
      if (ext === undefined) continue;
      const status = safe(() => ext.removePod(state, podToSchedule, podInfoToRemove, nodeInfo));
      if (!isSuccess(status)) return wrapError(`running RemovePod on PreFilter plugin "${pl.name}"`, status!, pl.name);
    }
    return undefined;
  }

  /** The filter plugins a cycle runs (PreFilter's Skips left out), worked out once per CycleState instead of per node. */
  private activeFilters(state: CycleState): readonly FilterPlugin[] {
    const skip = state.skipFilterPlugins;
    if (skip.size === 0) return this.filterPlugins;
    if (this.activeFiltersState === state && this.activeFiltersSkipSize === skip.size) return this.activeFiltersList;
    this.activeFiltersList = this.filterPlugins.filter((pl) => !skip.has(pl.name));
    this.activeFiltersState = state;
    this.activeFiltersSkipSize = skip.size;
    return this.activeFiltersList;
  }

  private activeFiltersState: CycleState | undefined;
  private activeFiltersSkipSize = 0;
  private activeFiltersList: readonly FilterPlugin[] = [];

  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const plugins = this.activeFilters(state);
    for (let i = 0; i < plugins.length; i++) {
      const pl = plugins[i]!;
      let status: PluginStatus;
      try {
        status = pl.filter(state, pod, nodeInfo);
      } catch (e: unknown) {
        status = errorStatus(e);
      }
      if (status === undefined || status.code === Code.Success) continue;
      if (!status.isRejected()) return wrapError(`running "${pl.name}" filter plugin`, status, pl.name);
      return stamped(status, pl.name);
    }
    return undefined;
  }

  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    // Pass 1 with the nominated pods of equal or higher priority added (the pod must not take room opened for them),
    // pass 2 without them (filters such as pod affinity must not rely on pods that may land elsewhere).
    const added = this.addGENominatedPods(state, pod, nodeInfo);
    if (added instanceof Status) return added;
    if (added === undefined) return this.runFilterPlugins(state, pod, nodeInfo);
    const first = this.runFilterPlugins(added.state, pod, added.nodeInfo);
    if (!isSuccess(first)) return first;
    return this.runFilterPlugins(state, pod, nodeInfo);
  }

  private addGENominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { state: CycleState; nodeInfo: NodeInfo } | Status | undefined {
    if (nodeInfo.node === undefined || this.parts.nominator.hasNominatedPods?.() === false) return undefined;
    const nominated = this.parts.nominator.nominatedPodsForNode(nodeInfo.name);
    if (nominated.length === 0) return undefined;
    const priority = priorityOf(pod);
    const uid = pod.metadata.uid;
    let out: { state: CycleState; nodeInfo: NodeInfo } | undefined;
    for (const pi of nominated) {
      if (priorityOf(pi.pod) < priority || pi.uid === uid) continue;
      out ??= { state: state.clone(), nodeInfo: nodeInfo.clone() };
      out.nodeInfo.addPod(pi);
      const status = this.runPreFilterExtensionAddPod(out.state, pod, pi, out.nodeInfo);
      if (!isSuccess(status)) return status!;
    }
    return out;
  }

  async runPostFilterPlugins(state: CycleState, pod: Pod, filteredNodeStatus: NodeToStatus): Promise<PostFilterOutcome> {
    let result: PostFilterResult | undefined;
    const reasons: string[] = [];
    let rejector = '';
    for (const pl of this.postFilterPlugins) {
      let outcome: PostFilterOutcome;
      try {
        outcome = await pl.postFilter(state, pod, filteredNodeStatus);
      } catch (e: unknown) {
        outcome = { status: errorStatus(e) };
      }
      const status = outcome.status;
      if (isSuccess(status)) return outcome;
      if (status!.code === Code.UnschedulableAndUnresolvable) return { ...outcome, status: stamped(status!, pl.name) };
      if (!status!.isRejected()) return { status: new Status(Code.Error, [status!.message()], status!.error).withPlugin(pl.name) };
      if (outcome.result?.nominatingInfo !== undefined && outcome.result.nominatingInfo.mode !== 'Noop') result = outcome.result;
      reasons.push(...status!.reasons);
      if (rejector === '') rejector = pl.name;
    }
    return { ...(result === undefined ? {} : { result }), status: new Status(Code.Unschedulable, reasons).withPlugin(rejector) };
  }

  runPreScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus {
    state.skipScorePlugins.clear();
    for (const pl of this.preScorePlugins) {
      const status = safe(() => pl.preScore(state, pod, nodes));
      if (status?.code === Code.Skip) {
        state.skipScorePlugins.add(pl.name);
        continue;
      }
      if (!isSuccess(status)) return wrapError(`running PreScore plugin "${pl.name}"`, status!, pl.name);
    }
    return undefined;
  }

  runScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): { readonly scores: NodePluginScores[]; readonly status: PluginStatus } {
    const plugins = this.scorePlugins.filter((pl) => !state.skipScorePlugins.has(pl.name));
    const n = nodes.length;
    // Raw scores per plugin as plain numbers; NodeScore objects only for plugins that normalize (hot path: 5 plugins × 500 nodes a pod).
    // Node by node, every plugin in turn (as upstream's parallel loop): a NodeInfo is fetched into the CPU cache once, not once per plugin.
    const perPlugin: Float64Array[] = plugins.map(() => new Float64Array(n));
    const failures: Array<Status | undefined> = [];
    let failed = false;
    for (let i = 0; i < n; i++) {
      const nodeInfo = nodes[i]!;
      for (let p = 0; p < plugins.length; p++) {
        let score: number | Status;
        try {
          score = plugins[p]!.score(state, pod, nodeInfo);
        } catch (e: unknown) {
          score = errorStatus(e);
        }
        if (typeof score !== 'number') {
          if (score.code !== Code.Success) {
            failures[p] ??= score;
            failed = true;
          }
          score = 0;
        }
        perPlugin[p]![i] = score;
      }
    }
    if (failed) {
      // The first plugin (in order) that failed, with its first failure.
      const p = failures.findIndex((f) => f !== undefined);
      return { scores: [], status: wrapError(`plugin "${plugins[p]!.name}" failed with`, failures[p]!, plugins[p]!.name) };
    }
    for (let p = 0; p < plugins.length; p++) {
      const pl = plugins[p]!;
      const ext = pl.scoreExtensions?.();
      if (ext === undefined) continue;
      const scores = perPlugin[p]!;
      const list: NodeScore[] = [];
      for (let i = 0; i < n; i++) list.push({ name: nodes[i]!.name, score: scores[i]! });
      const status = safe(() => ext.normalizeScore(state, pod, list));
      if (!isSuccess(status)) return { scores: [], status: wrapError(`plugin "${pl.name}" failed with`, status!, pl.name) };
      for (let i = 0; i < n; i++) scores[i] = list[i]!.score;
    }
    const weights = plugins.map((pl) => this.weights.get(pl.name) ?? 1);
    const pluginNames = plugins.map((pl) => pl.name);
    for (let p = 0; p < plugins.length; p++) {
      const scores = perPlugin[p]!;
      for (let i = 0; i < n; i++) {
        const score = scores[i]!;
        if (score > MAX_NODE_SCORE || score < MIN_NODE_SCORE) {
          const error = new Error(`plugin "${pluginNames[p]}" returns an invalid score ${score}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`);
          return { scores: [], status: errorStatus(error).withPlugin(pluginNames[p]!) };
        }
      }
    }
    const result: NodePluginScores[] = [];
    for (let i = 0; i < n; i++) {
      let totalScore = 0;
      for (let p = 0; p < perPlugin.length; p++) totalScore += perPlugin[p]![i]! * weights[p]!;
      result.push(new WeightedNodeScores(nodes[i]!.name, totalScore, i, pluginNames, weights, perPlugin));
    }
    return { scores: result, status: undefined };
  }

  runReservePluginsReserve(state: CycleState, pod: Pod, nodeName: string): PluginStatus {
    for (const pl of this.reservePlugins) {
      const status = safe(() => pl.reserve(state, pod, nodeName));
      if (isSuccess(status)) continue;
      if (status!.isRejected()) return stamped(status!, pl.name);
      return wrapError(`running Reserve plugin "${pl.name}"`, status!, pl.name);
    }
    return undefined;
  }

  runReservePluginsUnreserve(state: CycleState, pod: Pod, nodeName: string): void {
    for (let i = this.reservePlugins.length - 1; i >= 0; i--) {
      const pl = this.reservePlugins[i]!;
      try {
        pl.unreserve(state, pod, nodeName);
      } catch (e: unknown) {
        this.parts.logger.error({ err: e, plugin: pl.name }, 'Unreserve plugin failed');
      }
    }
  }

  runPermitPlugins(state: CycleState, pod: Pod, nodeName: string): PluginStatus {
    const waits = new Map<string, number>();
    for (const pl of this.permitPlugins) {
      let outcome;
      try {
        outcome = pl.permit(state, pod, nodeName);
      } catch (e: unknown) {
        outcome = { status: errorStatus(e) };
      }
      const status = outcome?.status;
      if (isSuccess(status)) continue;
      if (status!.isRejected()) return stamped(status!, pl.name);
      if (status!.code === Code.Wait) {
        waits.set(pl.name, Math.min(outcome?.timeoutMs ?? 0, MAX_PERMIT_TIMEOUT_MS));
        continue;
      }
      return wrapError(`running Permit plugin "${pl.name}"`, status!, pl.name);
    }
    if (waits.size === 0) return undefined;
    this.waitingPods.add(new WaitingPodImpl(pod, waits));
    return new Status(Code.Wait, [`one or more plugins asked to wait and no plugin rejected pod "${pod.metadata.name ?? ''}"`]);
  }

  async waitOnPermit(pod: Pod): Promise<PluginStatus> {
    const uid = pod.metadata.uid ?? '';
    const waiting = this.waitingPods.get(uid);
    if (waiting === undefined) return undefined;
    try {
      const status = await waiting.done;
      if (isSuccess(status) || status!.isRejected()) return status;
      return wrapError('waiting on permit for pod', status!, status!.plugin);
    } finally {
      this.waitingPods.remove(uid);
    }
  }

  /** Reject the pod if it waits on Permit (its pod was deleted); true if it was waiting. */
  rejectWaitingPod(uid: string): boolean {
    const waiting = this.waitingPods.get(uid);
    if (waiting === undefined) return false;
    waiting.reject('', 'removed');
    return true;
  }

  async runPreBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus> {
    for (const pl of this.preBindPlugins) {
      const status = await safeAsync(() => pl.preBind(state, pod, nodeName));
      if (isSuccess(status)) continue;
      if (status!.isRejected()) return stamped(status!, pl.name);
      return wrapError(`running PreBind plugin "${pl.name}"`, status!, pl.name);
    }
    return undefined;
  }

  async runBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus> {
    let status: PluginStatus = new Status(Code.Skip);
    for (const pl of this.bindPlugins) {
      status = await safeAsync(() => pl.bind(state, pod, nodeName));
      if (status?.code === Code.Skip) continue;
      if (isSuccess(status)) return status;
      if (status!.isRejected()) return stamped(status!, pl.name);
      return wrapError(`running Bind plugin "${pl.name}"`, status!, pl.name);
    }
    return status;
  }

  runPostBindPlugins(state: CycleState, pod: Pod, nodeName: string): void {
    for (const pl of this.postBindPlugins) {
      try {
        pl.postBind(state, pod, nodeName);
      } catch (e: unknown) {
        this.parts.logger.error({ err: e, plugin: pl.name }, 'PostBind plugin failed');
      }
    }
  }

  hasFilterPlugins(): boolean {
    return this.filterPlugins.length > 0;
  }

  hasPostFilterPlugins(): boolean {
    return this.postFilterPlugins.length > 0;
  }

  hasScorePlugins(): boolean {
    return this.scorePlugins.length > 0;
  }

  eventsToRegister(): ReadonlyMap<string, readonly ClusterEventWithHint[]> {
    return this.events;
  }
}

/** One node's scores; the per-plugin list is built only when read (selectHost needs the total only). */
class WeightedNodeScores implements NodePluginScores {
  constructor(
    readonly name: string,
    readonly totalScore: number,
    private readonly index: number,
    private readonly plugins: readonly string[],
    private readonly weights: readonly number[],
    private readonly perPlugin: readonly Float64Array[],
  ) {}

  get scores(): ReadonlyArray<{ readonly plugin: string; readonly score: number }> {
    return this.plugins.map((plugin, p) => ({ plugin, score: this.perPlugin[p]![this.index]! * this.weights[p]! }));
  }
}

function intersect(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const name of a) if (b.has(name)) out.add(name);
  return out;
}

/** A plugin call that must not throw: a throw becomes an Error status. */
function safe(call: () => PluginStatus): PluginStatus {
  try {
    return call();
  } catch (e: unknown) {
    return errorStatus(e);
  }
}

async function safeAsync(call: () => Promise<PluginStatus>): Promise<PluginStatus> {
  try {
    return await call();
  } catch (e: unknown) {
    return errorStatus(e);
  }
}

/** The runtime's own surface beyond {@link Framework} (tests and the scheduler). */
export interface FrameworkRuntime extends Framework {
  readonly handle: Handle;
  readonly waitingPods: WaitingPods;
  weightOf(name: string): number | undefined;
  pluginNames(point: ExtensionPoint): string[];
  rejectWaitingPod(uid: string): boolean;
}

export type { ExtensionPoint };

/** Build a profile's framework; throws Error naming the problem for a bad profile or plugin args. */
export function newFramework(registry: Registry, profile: Profile, parts: HandleParts): FrameworkRuntime {
  return new FrameworkImpl(registry, profile, parts);
}
