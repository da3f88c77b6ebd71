/**
 * `k8ts controller-manager`: the controllers of the cluster in one process, as
 * upstream's kube-controller-manager, talking to the API server with the
 * identity of its kubeconfig. It serves /healthz and /metrics (Prometheus:
 * workqueue_*, leader_election_master_status, process metrics) over HTTP on
 * --bind-address:--secure-port, elects a leader on the Lease
 * kube-system/kube-controller-manager, and exits non-zero when it loses the
 * Lease (its supervisor restarts it as a candidate).
 */
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { newInformerFactory } from '../client/cache/informer-factory.js';
import { newEventRecorderFactory } from '../client/record/event-recorder.js';
import { newHttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import { serveHealthAndMetrics } from './health-metrics-server.js';
import { setWorkQueueMetricsProvider } from '../client/workqueue/metrics.js';
import { prometheusWorkQueueMetrics } from '../client/workqueue/prometheus-metrics.js';
import type { ControllerDefinition } from '../controllers/context.js';
import { startControllerManager, type ManagerExit } from '../controllers/manager.js';
import { CONTROLLERS } from '../controllers/registry.js';
import { newLogger } from '../machinery/logger.js';
import {
  addControllerManagerFlags,
  controllerManagerOptionsFromFlags,
  leaderElectionFromFlags,
  type ControllerManagerFlags,
} from './controller-manager-flags.js';

/** How long a stopping manager waits for its queued Events to be written. */
const EVENTS_FLUSH_TIMEOUT_MS = 2_000;

const out = (line: string): void => void process.stdout.write(`${line}\n`);

export function controllerManagerCommand(definitions: readonly ControllerDefinition[] = CONTROLLERS): Command {
  const command = new Command('controller-manager').description('run the controllers: the loops that make the cluster\'s actual state follow the declared one');
  addControllerManagerFlags(command);
  return command.action(async (flags: ControllerManagerFlags) => {
    const exit = await runControllerManager(flags, definitions);
    // Exit now, as upstream's does: a request still retrying against a stopped API server must not hold the process.
    process.exit(exit.reason === 'stopped' ? 0 : 1);
  });
}

export async function runControllerManager(flags: ControllerManagerFlags, definitions: readonly ControllerDefinition[]): Promise<ManagerExit> {
  if (flags.kubeconfig === undefined) throw new Error('--kubeconfig is required: the controller manager reaches the API server only through it');
  const log = newLogger('controller-manager');
  const options = controllerManagerOptionsFromFlags(flags);
  const leaderElection = leaderElectionFromFlags(flags);
  const client = newHttpClient(
    restConfigFromKubeconfig(flags.kubeconfig, { userAgent: 'kube-controller-manager/k8ts', qps: flags.kubeApiQps, burst: flags.kubeApiBurst }),
  );

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  setWorkQueueMetricsProvider(prometheusWorkQueueMetrics(registry));
  const masterStatus = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'],
    registers: [registry],
  });
  const events = newEventRecorderFactory(client, { logger: log.child({ part: 'events' }) });

  const manager = startControllerManager({
    client,
    newInformerFactory: (c, o) => newInformerFactory(c, { resyncPeriodMs: o.resyncPeriodMs }),
    events,
    definitions,
    controllers: flags.controllers ?? ['*'],
    options,
    leaderElection,
    logger: log,
  });
  const server = await serveHealthAndMetrics(flags.bindAddress, flags.securePort, registry).catch(async (e: unknown) => {
    await manager.stop();
    throw new Error(`cannot serve on ${flags.bindAddress}:${flags.securePort}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  });
  const port = (server.address() as AddressInfo).port;
  out(`controller-manager: serving /healthz and /metrics on http://${flags.bindAddress}:${port}`);
  if (leaderElection.leaderElect) out(`controller-manager: leader election identity ${manager.identity} on lease ${leaderElection.resourceNamespace}/${leaderElection.resourceName}`);
  const statusTimer = setInterval(() => masterStatus.set({ name: leaderElection.resourceName }, manager.leading ? 1 : 0), 1000);
  statusTimer.unref();

  const onSignal = (): void => void manager.stop();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const exit = await manager.exited;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  clearInterval(statusTimer);
  await Promise.race([events.shutdown(), new Promise((resolve) => setTimeout(resolve, EVENTS_FLUSH_TIMEOUT_MS).unref())]);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  client.close();
  setWorkQueueMetricsProvider(undefined);
  if (exit.reason === 'lost-leadership') {
    log.error('leaderelection lost');
    out('controller-manager: lost the leader lease; exiting');
  } else if (exit.reason === 'failed') {
    out(`controller-manager: failed: ${exit.error instanceof Error ? exit.error.message : String(exit.error)}`);
  } else {
    out('controller-manager: stopped');
  }
  return exit;
}
export { serveHealthAndMetrics } from './health-metrics-server.js';
