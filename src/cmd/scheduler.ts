/**
 * `k8ts scheduler`: places every pending pod on a node, as upstream's
 * kube-scheduler, talking to the API server with the identity of its
 * kubeconfig (system:kube-scheduler under `k8ts server`). It serves /healthz
 * and /metrics (scheduler_*, leader_election_master_status, process metrics)
 * over plain HTTP on --bind-address:--secure-port, as the controller manager
 * does.
 *
 * As upstream, the scheduler is built and its informers started and synced
 * before the election (a bad --config fails at once; a standby is warm), and
 * it schedules only while it holds the Lease kube-system/kube-scheduler. It
 * exits 1 when it loses the Lease (its supervisor restarts it as a
 * candidate), 0 on SIGINT/SIGTERM after releasing the Lease.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Command } from 'commander';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { newInformerFactory } from '../client/cache/informer-factory.js';
import { LeaderElector } from '../client/leader-election/leader-elector.js';
import { newEventRecorderFactory } from '../client/record/event-recorder.js';
import { newHttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import { newLogger } from '../machinery/logger.js';
import type { SchedulerConfiguration } from '../scheduler/config/types.js';
import type { Scheduler } from '../scheduler/scheduler-options.js';
import { serveHealthAndMetrics } from './health-metrics-server.js';
import { addSchedulerFlags, applySchedulerFlags, fromCommandLine, type SchedulerFlags } from './scheduler-flags.js';
import { defaultSchedulerRuntime, type SchedulerRuntime } from './scheduler-runtime.js';

/** How long a stopping scheduler waits for its queued Events, and for in-flight bindings. */
const EVENTS_FLUSH_TIMEOUT_MS = 2_000;
const RUN_STOP_TIMEOUT_MS = 10_000;

export type SchedulerExit = { readonly reason: 'stopped' } | { readonly reason: 'lost-leadership' } | { readonly reason: 'failed'; readonly error: unknown };

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function schedulerCommand(runtime?: SchedulerRuntime): Command {
  const command = new Command('scheduler').description('run the scheduler: place each pending pod on a node that fits it');
  addSchedulerFlags(command);
  return command.action(async (flags: SchedulerFlags) => {
    const exit = await runScheduler(flags, { givenOnCommandLine: fromCommandLine(command), runtime: runtime ?? defaultSchedulerRuntime });
    // Exit now, as upstream's does: a request still retrying against a stopped API server must not hold the process.
    process.exit(exit.reason === 'stopped' ? 0 : 1);
  });
}

export interface RunSchedulerOptions {
  /** Which flags the user set (they override the --config file); default: none. */
  readonly givenOnCommandLine?: (attribute: keyof SchedulerFlags) => boolean;
  readonly runtime: SchedulerRuntime;
  /** Stops the scheduler as SIGINT/SIGTERM do (tests). */
  readonly signal?: AbortSignal;
}

/** The configuration of --config (or the defaults) with the command-line flags over it; errors name the file. */
async function configurationFromFlags(flags: SchedulerFlags, options: RunSchedulerOptions): Promise<SchedulerConfiguration> {
  let loaded: SchedulerConfiguration;
  try {
    loaded = await options.runtime.loadConfiguration(flags.config);
  } catch (e: unknown) {
    const text = message(e);
    throw new Error(flags.config !== undefined && !text.includes(flags.config) ? `invalid --config ${flags.config}: ${text}` : `invalid --config: ${text}`, { cause: e });
  }
  return applySchedulerFlags(loaded, flags, options.givenOnCommandLine ?? (() => false));
}

export async function runScheduler(flags: SchedulerFlags, options: RunSchedulerOptions): Promise<SchedulerExit> {
  if (flags.kubeconfig === undefined) throw new Error('--kubeconfig is required: the scheduler reaches the API server only through it');
  const config = await configurationFromFlags(flags, options);
  const leaderElection = config.leaderElection;
  const log = newLogger('scheduler');
  const client = newHttpClient(restConfigFromKubeconfig(flags.kubeconfig, { userAgent: 'kube-scheduler/k8ts', qps: flags.kubeApiQps, burst: flags.kubeApiBurst }));

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const masterStatus = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'],
    registers: [registry],
  });
  const events = newEventRecorderFactory(client, { logger: log.child({ part: 'events' }) });
  // No resync: the scheduler reacts to changes, as upstream's (resync period 0).
  const informers = newInformerFactory(client, { resyncPeriodMs: 0, onError: (text, error) => log.warn({ err: error }, text) });

  let scheduler: Scheduler;
  let server: Server;
  try {
    scheduler = options.runtime.newScheduler({ client, informers, events, logger: log, config, metricsRegistry: registry });
    server = await serveHealthAndMetrics(flags.bindAddress, flags.securePort, registry).catch((e: unknown) => {
      throw new Error(`cannot serve on ${flags.bindAddress}:${flags.securePort}: ${message(e)}`, { cause: e });
    });
  } catch (e: unknown) {
    informers.stop();
    client.close();
    throw e;
  }
  out(`scheduler: serving /healthz and /metrics on http://${flags.bindAddress}:${(server.address() as AddressInfo).port}`);
  informers.start();

  const stopping = new AbortController();
  const onSignal = (): void => stopping.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  options.signal?.addEventListener('abort', onSignal, { once: true });

  let failure: { error: unknown } | undefined;
  let running: Promise<void> = Promise.resolve();
  /** Schedule until `signal` aborts; a scheduler that fails or ends by itself stops the process. */
  const schedule = (signal: AbortSignal): void => {
    running = scheduler.run(signal).then(
      () => {
        if (!signal.aborted) failure ??= { error: new Error('the scheduler stopped by itself') };
      },
      (e: unknown) => {
        if (!signal.aborted) failure ??= { error: e };
      },
    ).finally(() => {
      if (failure !== undefined) stopping.abort();
    });
  };

  let lost = false;
  if (!leaderElection.leaderElect) {
    out('scheduler: scheduling (no leader election)');
    schedule(stopping.signal);
    await new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
  } else {
    const name = leaderElection.resourceName;
    masterStatus.set({ name }, 0);
    const elector = new LeaderElector({
      client,
      namespace: leaderElection.resourceNamespace,
      name,
      leaseDurationMs: leaderElection.leaseDurationMs,
      renewDeadlineMs: leaderElection.renewDeadlineMs,
      retryPeriodMs: leaderElection.retryPeriodMs,
      logger: log.child({ leaderElection: `${leaderElection.resourceNamespace}/${name}` }),
      callbacks: {
        onStartedLeading: (signal) => {
          masterStatus.set({ name }, 1);
          out('scheduler: started leading');
          signal.addEventListener('abort', () => masterStatus.set({ name }, 0), { once: true });
          schedule(signal);
        },
        onStoppedLeading: () => masterStatus.set({ name }, 0),
        onNewLeader: (holder) => {
          if (holder !== '' && holder !== elector.identity) log.info({ holder }, 'new leader elected');
        },
      },
    });
    out(`scheduler: leader election identity ${elector.identity} on lease ${leaderElection.resourceNamespace}/${name}`);
    // The run ends by itself only when the Lease is lost; otherwise because of a signal or a failed scheduler.
    await elector.run(stopping.signal);
    lost = !stopping.signal.aborted;
  }
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);

  if (lost) {
    // As upstream: exit at once, without waiting for anything the lost leader was doing.
    log.error('Leaderelection lost');
    out('scheduler: lost the leader lease; exiting');
  } else {
    await Promise.race([running, new Promise((resolve) => setTimeout(resolve, RUN_STOP_TIMEOUT_MS).unref())]);
  }
  informers.stop();
  await Promise.race([events.shutdown(), new Promise((resolve) => setTimeout(resolve, EVENTS_FLUSH_TIMEOUT_MS).unref())]);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  client.close();
  if (lost) return { reason: 'lost-leadership' };
  if (failure !== undefined) {
    out(`scheduler: failed: ${message(failure.error)}`);
    return { reason: 'failed', error: failure.error };
  }
  out('scheduler: stopped');
  return { reason: 'stopped' };
}
