/**
 * The controller manager: runs the enabled controllers of a registry over one
 * shared informer factory, inside leader election as upstream's
 * kube-controller-manager does.
 * - Controllers start only once this process leads; each gets a context
 *   whose signal aborts when leading ends. After every controller's start the
 *   informers start (so every handler sees the initial list).
 * - Losing the Lease (a renewal missing the renew deadline) ends the manager
 *   with `lost-leadership`: the process must exit (non-zero) rather than lead
 *   again, so that no two managers ever act at once; its supervisor restarts it
 *   as a candidate.
 * - stop() (SIGINT/SIGTERM) aborts the controllers and releases the Lease, so
 *   that another manager takes over at once.
 */
import { setMaxListeners } from 'node:events';
import type { InformerFactory } from '../client/cache/interfaces.js';
import { LeaderElector } from '../client/leader-election/leader-elector.js';
import type { EventRecorderFactory } from '../client/record/interface.js';
import type { Client } from '../client/rest/interface.js';
import type { Logger } from '../machinery/logger.js';
import type { ControllerContext, ControllerDefinition, ControllerManagerOptions } from './context.js';
import { selectControllers } from './controller-selection.js';

export interface LeaderElectionSettings {
  /** --leader-elect (default true). */
  readonly leaderElect: boolean;
  /** --leader-elect-lease-duration (15 s). */
  readonly leaseDurationMs: number;
  /** --leader-elect-renew-deadline (10 s). */
  readonly renewDeadlineMs: number;
  /** --leader-elect-retry-period (2 s). */
  readonly retryPeriodMs: number;
  /** --leader-elect-resource-name (kube-controller-manager). */
  readonly resourceName: string;
  /** --leader-elect-resource-namespace (kube-system). */
  readonly resourceNamespace: string;
  /** Default: hostname_uuid. */
  readonly identity?: string;
}

export const defaultLeaderElectionSettings = (overrides: Partial<LeaderElectionSettings> = {}): LeaderElectionSettings => ({
  leaderElect: true,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  resourceName: 'kube-controller-manager',
  resourceNamespace: 'kube-system',
  ...overrides,
});

export type NewInformerFactory = (client: Client, options: { readonly resyncPeriodMs: number }) => InformerFactory;

export interface ControllerManagerConfig {
  readonly client: Client;
  readonly newInformerFactory: NewInformerFactory;
  readonly events: EventRecorderFactory;
  readonly definitions: readonly ControllerDefinition[];
  /** --controllers selectors (default ['*']). */
  readonly controllers?: readonly string[];
  readonly options: ControllerManagerOptions;
  readonly leaderElection: LeaderElectionSettings;
  readonly logger: Logger;
  /** For the resync jitter (tests). */
  readonly random?: () => number;
}

export type ManagerExit =
  | { readonly reason: 'stopped' }
  | { readonly reason: 'lost-leadership' }
  | { readonly reason: 'failed'; readonly error: unknown };

export interface ControllerManager {
  /** Resolves once the manager has ended, and why. */
  readonly exited: Promise<ManagerExit>;
  /** True while controllers run. */
  readonly leading: boolean;
  /** The elector's identity ('' without leader election). */
  readonly identity: string;
  /** Stop the controllers and release the Lease; resolves with the exit. */
  stop(): Promise<ManagerExit>;
}

/** Upstream's ResyncPeriod: min-resync-period × [1, 2), chosen once per process. */
export function resyncPeriodMs(minResyncPeriodMs: number, random: () => number = Math.random): number {
  return Math.floor(minResyncPeriodMs * (1 + random()));
}

/**
 * Start the manager. Throws at once for a bad --controllers value (naming the
 * known controllers) or bad leader election timers.
 */
export function startControllerManager(config: ControllerManagerConfig): ControllerManager {
  const selected = selectControllers(config.controllers ?? ['*'], config.definitions);
  const log = config.logger;
  const stopping = new AbortController();
  let leading = false;
  let failure: unknown;
  let failed = false;
  let resolveExit!: (exit: ManagerExit) => void;
  const exited = new Promise<ManagerExit>((resolve) => (resolveExit = resolve));

  /** Start the selected controllers; they run until `signal` aborts. */
  const runControllers = async (signal: AbortSignal): Promise<void> => {
    leading = true;
    // Every controller (and each of its loops) listens for this one abort: more than Node's default of 10 is expected, not a leak.
    setMaxListeners(0, signal);
    const informers = config.newInformerFactory(config.client, { resyncPeriodMs: resyncPeriodMs(config.options.minResyncPeriodMs, config.random) });
    signal.addEventListener(
      'abort',
      () => {
        leading = false;
        informers.stop();
      },
      { once: true },
    );
    const base: Omit<ControllerContext, 'logger'> = { client: config.client, informers, events: config.events, options: config.options, signal };
    try {
      for (const definition of selected) {
        if (signal.aborted) return;
        log.info({ controller: definition.name }, 'Starting controller');
        await definition.start({ ...base, logger: log.child({ controller: definition.name }) });
        log.info({ controller: definition.name }, 'Started controller');
      }
      if (signal.aborted) return;
      informers.start();
      log.info({ controllers: selected.map((d) => d.name) }, 'all controllers started');
    } catch (e: unknown) {
      log.error({ err: e }, 'error starting controllers');
      failure = e;
      failed = true;
      stopping.abort();
    }
  };

  const finish = (lost: boolean): void => {
    leading = false;
    if (failed) resolveExit({ reason: 'failed', error: failure });
    else if (lost) resolveExit({ reason: 'lost-leadership' });
    else resolveExit({ reason: 'stopped' });
  };

  let identity = '';
  if (!config.leaderElection.leaderElect) {
    void runControllers(stopping.signal);
    stopping.signal.addEventListener('abort', () => finish(false), { once: true });
  } else {
    const le = config.leaderElection;
    const elector = new LeaderElector({
      client: config.client,
      namespace: le.resourceNamespace,
      name: le.resourceName,
      ...(le.identity !== undefined ? { identity: le.identity } : {}),
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      logger: log.child({ leaderElection: `${le.resourceNamespace}/${le.resourceName}` }),
      callbacks: {
        onStartedLeading: (signal) => void runControllers(signal),
        onStoppedLeading: () => {
          if (!stopping.signal.aborted) log.error('leaderelection lost');
        },
        onNewLeader: (holder) => {
          if (holder !== '' && holder !== identity) log.info({ holder }, 'new leader elected');
        },
      },
    });
    identity = elector.identity;
    // The run ends by itself only when the Lease is lost; otherwise because stop() (or a failed start) aborted it.
    void elector.run(stopping.signal).then(() => finish(!stopping.signal.aborted));
  }

  return {
    exited,
    get leading() {
      return leading;
    },
    identity,
    async stop() {
      stopping.abort();
      return exited;
    },
  };
}
