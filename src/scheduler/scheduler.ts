/**
 * newScheduler(options): the whole scheduler of one process — a framework
 * per profile, the scheduling queue and cache, the informer event handlers,
 * metrics, and the loop that pops a pod and runs its scheduling cycle until
 * the signal aborts (upstream's scheduler.go / Scheduler.Run).
 */
import type { Registry as PromRegistry } from 'prom-client';
import { NAMESPACES, NODES, PODS, POD_DISRUPTION_BUDGETS } from '../client/rest/resources.js';
import type { SchedulerCache } from './cache/interface.js';
import { UNSUPPORTED_DEFAULT_PLUGINS, UPSTREAM_DEFAULT_PLUGINS } from './config/default-plugins.js';
import { defaultCacheFactory, defaultQueueFactory, type CacheFactory, type QueueFactory } from './default-parts.js';
import { addAllEventHandlers } from './event-handlers.js';
import type { Framework, PodNominator } from './framework/interfaces.js';
import { newFramework } from './framework/runtime.js';
import type { Node, Pod, PodInfo } from './framework/types.js';
import type { KubeObject } from '../machinery/meta.js';

type Namespace = KubeObject;
import { WaitingPods } from './framework/waiting-pods.js';
import { NO_METRICS, newSchedulerMetrics, type SchedulerMetrics } from './metrics.js';
import { newRegistry } from './plugins/registry.js';
import type { SchedulingQueue, SchedulingQueueOptions } from './queue/interface.js';
import { ScheduleOne } from './schedule-one.js';
import type { Scheduler, SchedulerOptions } from './scheduler-options.js';

const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** Parts a test or benchmark may replace. */
export interface SchedulerInternals {
  readonly newQueue?: QueueFactory;
  readonly newCache?: CacheFactory;
  /** Nodes filtered between two yields to the event loop. */
  readonly filterChunkSize?: number;
  /** selectHost's tie-breaking. */
  readonly random?: () => number;
  /** Queue timers and clock (tests use short ones). */
  readonly queueOptions?: Pick<SchedulingQueueOptions, 'backoffFlushIntervalMs' | 'unschedulableFlushIntervalMs' | 'podMaxInUnschedulablePodsDurationMs' | 'now'>;
}

/** What newScheduler returns: the contract's Scheduler, plus a look inside for tests and benchmarks. */
export interface SchedulerRuntime extends Scheduler {
  readonly frameworks: ReadonlyMap<string, Framework>;
  readonly queue: SchedulingQueue;
  readonly cache: SchedulerCache;
  /** Binding cycles still running. */
  inFlightBindings(): number;
}

export function newScheduler(options: SchedulerOptions, internals: SchedulerInternals = {}): SchedulerRuntime {
  const { client, informers, logger, config } = options;
  const registry = newRegistry(options.extraPlugins);
  const leftOut = UPSTREAM_DEFAULT_PLUGINS.map((p) => p.name).filter((name) => registry[name] === undefined || UNSUPPORTED_DEFAULT_PLUGINS.has(name));
  if (leftOut.length > 0) logger.info({ plugins: leftOut }, 'Upstream default plugins that k8ts does not have are left out of the default profile');
  const cache = (internals.newCache ?? defaultCacheFactory)({ logger });
  const snapshot = cache.newSnapshot();
  const waitingPods = new WaitingPods();
  // The frameworks need the queue's nominator and the queue needs the frameworks: plugins get a nominator that forwards to the queue.
  let queueRef: SchedulingQueue | undefined;
  const theQueue = (): SchedulingQueue => {
    if (queueRef === undefined) throw new Error('the scheduling queue is not built yet');
    return queueRef;
  };
  const nominator: PodNominator = {
    addNominatedPod: (podInfo: PodInfo, nodeName?: string) => (nodeName === undefined ? theQueue().addNominatedPod(podInfo) : theQueue().addNominatedPod(podInfo, nodeName)),
    deleteNominatedPodIfExists: (pod: Pod) => theQueue().deleteNominatedPodIfExists(pod),
    updateNominatedPod: (oldPod: Pod, newPodInfo: PodInfo) => theQueue().updateNominatedPod(oldPod, newPodInfo),
    nominatedPodsForNode: (nodeName: string) => theQueue().nominatedPodsForNode(nodeName),
    hasNominatedPods: () => theQueue().hasNominatedPods?.() ?? true,
  };
  const frameworks = new Map<string, Framework>();
  for (const profile of config.profiles) {
    const fwk = newFramework(registry, profile, {
      snapshot,
      client,
      informers,
      events: options.events.recorderFor(profile.schedulerName),
      nominator,
      logger: logger.child({ profile: profile.schedulerName }),
      waitingPods,
    });
    frameworks.set(profile.schedulerName, fwk);
  }
  const pods = informers.informerFor<Pod>(PODS);
  const nodes = informers.informerFor<Node>(NODES);
  // Also available to plugins through the factory (InterPodAffinity's namespaceSelector, DefaultPreemption's PDBs).
  const namespaces = informers.informerFor<Namespace>(NAMESPACES);
  informers.informerFor(POD_DISRUPTION_BUDGETS);
  const queue = (internals.newQueue ?? defaultQueueFactory)(frameworks, {
    podInitialBackoffMs: config.podInitialBackoffSeconds * 1000,
    podMaxBackoffMs: config.podMaxBackoffSeconds * 1000,
    namespaceLabels: (namespace) => namespaces.indexer.get(namespace)?.metadata.labels,
    currentPod: (namespace, name) => pods.indexer.get(`${namespace}/${name}`),
    ...internals.queueOptions,
  });
  queueRef = queue;
  const metrics: SchedulerMetrics = options.metricsRegistry === undefined ? NO_METRICS : newSchedulerMetrics(options.metricsRegistry as PromRegistry, queue);
  const recorders = new Map([...frameworks.keys()].map((name) => [name, options.events.recorderFor(name)]));
  const cycle = new ScheduleOne({
    queue,
    cache,
    snapshot,
    frameworks,
    client,
    recorderFor: (name) => recorders.get(name) ?? options.events.recorderFor(name),
    getPod: (namespace, name) => pods.indexer.get(`${namespace}/${name}`),
    logger,
    metrics,
    percentageOfNodesToScore: config.percentageOfNodesToScore,
    ...(internals.filterChunkSize === undefined ? {} : { filterChunkSize: internals.filterChunkSize }),
    ...(internals.random === undefined ? {} : { random: internals.random }),
  });
  const responsibleFor = (pod: Pod): boolean => frameworks.has(pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME);
  let running = false;

  async function run(signal: AbortSignal): Promise<void> {
    if (running) throw new Error('the scheduler is already running');
    running = true;
    const registrations = addAllEventHandlers({ pods, nodes, cache, queue, responsibleFor, waitingPods, logger });
    const stop = (): void => queue.close();
    signal.addEventListener('abort', stop, { once: true });
    try {
      informers.start();
      try {
        await informers.waitForCacheSync(signal);
      } catch (e: unknown) {
        if (signal.aborted) return;
        throw e;
      }
      if (signal.aborted) return;
      queue.run();
      logger.info({ profiles: [...frameworks.keys()] }, 'Scheduler started');
      for (;;) {
        const qpi = await queue.pop();
        if (qpi === undefined || signal.aborted) break;
        try {
          await cycle.scheduleOne(qpi);
        } catch (e: unknown) {
          logger.error({ err: e }, 'Scheduling cycle failed unexpectedly');
          queue.done(qpi.podInfo.uid);
        }
        // Let I/O (watch events, binding responses, metrics scrapes) run between cycles.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      signal.removeEventListener('abort', stop);
      queue.close();
      waitingPods.rejectAll('', 'scheduler stopped');
      await cycle.drain();
      for (const r of registrations) r.remove();
      running = false;
      logger.info('Scheduler stopped');
    }
  }

  return {
    run,
    pendingPods: () => queue.pendingPods(),
    frameworks,
    queue,
    cache,
    inFlightBindings: () => cycle.inFlightBindings,
  };
}
