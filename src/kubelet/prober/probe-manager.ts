/**
 * The probe manager (upstream prober_manager.go): a record per running
 * container with its startup, liveness and readiness workers, and the
 * readiness and started state the pod workers read for the pod's status.
 *
 * - Readiness starts false when the container has a readiness probe, and
 *   follows the probe's results after that; with no readiness probe a
 *   container is ready once it has started.
 * - Started is false until the startup probe succeeds (true at once without
 *   one). Liveness and readiness do not probe before it; when it succeeds the
 *   readiness probe runs at once.
 * - A liveness or startup failure at failureThreshold calls onFailure with
 *   the message of upstream's Killing event ("Container app failed liveness
 *   probe, will be restarted"); the probe's own output went in the Unhealthy
 *   event. The worker then holds until containerStarted brings a new id.
 * - A container seen exited (or gone) is neither ready nor started, and its
 *   probes stop; one in CRI's CONTAINER_UNKNOWN state is neither while it
 *   lasts, and is not probed. onChange(podUid) follows every change of ready or started
 *   that a probe caused (not those the caller caused by containerStarted,
 *   containerStopped or removePod).
 */
import type { Probe } from 'kubernetes-types/core/v1.js';
import type { ContainerSpec, Pod } from '../types.js';
import type { ProbeKind, ProbeManager, ProbeManagerOptions } from './interface.js';
import { NO_PROBE_METRICS, newProbeMetrics, type ProbeMetrics } from './probe-metrics.js';
import { probeTiming } from './probe-timing.js';
import { ProbeWorker } from './probe-worker.js';
import { newProber, type Prober } from './prober.js';

/** Upstream's Killing event message for a container killed by a failed probe. */
export const probeFailureMessage = (containerName: string, kind: 'liveness' | 'startup'): string =>
  `Container ${containerName} failed ${kind} probe, will be restarted`;

interface ContainerRecord {
  readonly pod: Pod;
  readonly name: string;
  readonly containerId: string;
  running: boolean;
  readonly hasStartupProbe: boolean;
  readonly hasReadinessProbe: boolean;
  startupSucceeded: boolean;
  readinessSucceeded: boolean;
  readonly workers: ProbeWorker[];
}

const isStarted = (r: ContainerRecord): boolean => r.running && (!r.hasStartupProbe || r.startupSucceeded);
const isReady = (r: ContainerRecord): boolean => isStarted(r) && (!r.hasReadinessProbe || r.readinessSucceeded);

/** The container of this name in the pod's spec (a restartable init container may have probes too). */
function findContainer(pod: Pod, name: string): ContainerSpec | undefined {
  return pod.spec?.containers.find((c) => c.name === name) ?? pod.spec?.initContainers?.find((c) => c.name === name);
}

export function newProbeManager(options: ProbeManagerOptions): ProbeManager {
  const secondMs = options.secondMs ?? 1000;
  const prober: Prober = newProber({ runtime: options.runtime, events: options.events });
  const metrics: ProbeMetrics = options.registry !== undefined ? newProbeMetrics(options.registry) : NO_PROBE_METRICS;
  /** podUid → container name → record. */
  const pods = new Map<string, Map<string, ContainerRecord>>();
  /** podUid → when its probe clock started (ms since the epoch): every probe of the pod ticks at whole periods from it. */
  const clocks = new Map<string, number>();
  let stopped = false;

  const lookup = (podUid: string, name: string): ContainerRecord | undefined => pods.get(podUid)?.get(name);
  const isCurrent = (r: ContainerRecord): boolean => lookup(r.pod.metadata.uid ?? '', r.name) === r;

  const stopWorkers = (r: ContainerRecord): void => {
    for (const w of r.workers) w.stop();
  };

  const notify = (podUid: string): void => {
    try {
      options.onChange(podUid);
    } catch {
      // The callback's failure is the caller's; probing goes on.
    }
  };

  /** Applies `change` to a current record and calls onChange if ready or started moved. */
  const update = (r: ContainerRecord, change: () => void): void => {
    if (!isCurrent(r)) return;
    const before = [isReady(r), isStarted(r)];
    change();
    if (isReady(r) !== before[0] || isStarted(r) !== before[1]) notify(r.pod.metadata.uid ?? '');
  };

  const onResult = (r: ContainerRecord, kind: ProbeKind, result: 'success' | 'failure'): void => {
    if (!isCurrent(r)) return;
    switch (kind) {
      case 'readiness':
        update(r, () => (r.readinessSucceeded = result === 'success'));
        return;
      case 'startup': {
        const wasStarted = isStarted(r);
        update(r, () => (r.startupSucceeded = result === 'success'));
        if (!wasStarted && isStarted(r)) for (const w of r.workers) if (w.kind === 'readiness') w.trigger();
        if (result === 'failure') fail(r, 'startup');
        return;
      }
      case 'liveness':
        if (result === 'failure') fail(r, 'liveness');
        return;
    }
  };

  const fail = (r: ContainerRecord, kind: 'liveness' | 'startup'): void => {
    try {
      options.onFailure(r.pod.metadata.uid ?? '', r.name, r.containerId, kind, probeFailureMessage(r.name, kind));
    } catch {
      // As notify.
    }
  };

  const remove = (podUid: string, name: string): void => {
    const containers = pods.get(podUid);
    const r = containers?.get(name);
    if (containers === undefined || r === undefined) return;
    stopWorkers(r);
    containers.delete(name);
    if (containers.size === 0) pods.delete(podUid);
  };

  return {
    addPod(pod) {
      const podUid = pod.metadata.uid ?? '';
      if (!stopped && !clocks.has(podUid)) clocks.set(podUid, Date.now());
    },

    containerStarted(pod, containerName, containerId, podIP) {
      if (stopped) return;
      const podUid = pod.metadata.uid ?? '';
      const now = Date.now();
      // A pod not announced by addPod starts its clock now (its first probe comes at once).
      let clockMs = clocks.get(podUid);
      if (clockMs === undefined) clocks.set(podUid, (clockMs = now));
      const existing = lookup(podUid, containerName);
      if (existing !== undefined && existing.containerId === containerId) return; // already probing this container
      remove(podUid, containerName);

      const spec = findContainer(pod, containerName);
      const probes: [ProbeKind, Probe | undefined][] = [
        ['startup', spec?.startupProbe],
        ['readiness', spec?.readinessProbe],
        ['liveness', spec?.livenessProbe],
      ];
      const record: ContainerRecord = {
        pod,
        name: containerName,
        containerId,
        running: true,
        hasStartupProbe: spec?.startupProbe != null,
        hasReadinessProbe: spec?.readinessProbe != null,
        startupSucceeded: false,
        readinessSucceeded: false,
        workers: [],
      };
      let containers = pods.get(podUid);
      if (containers === undefined) pods.set(podUid, (containers = new Map()));
      containers.set(containerName, record);
      if (spec === undefined) return;

      for (const [kind, probe] of probes) {
        if (probe == null) continue;
        record.workers.push(
          new ProbeWorker({
            kind,
            probe,
            timing: probeTiming(probe, kind, secondMs),
            clockMs,
            target: { pod, container: spec, containerId, podIP },
            runtime: options.runtime,
            prober,
            metrics,
            host: {
              isStarted: () => isStarted(record),
              containerNotRunning: () => {
                stopWorkers(record);
                update(record, () => (record.running = false));
              },
              containerSeen: (running) => {
                if (record.running === running) return;
                update(record, () => {
                  record.running = running;
                  // As upstream records a failure for a container not running: readiness must be earned again.
                  if (!running) record.readinessSucceeded = false;
                });
              },
              setResult: (k, result) => onResult(record, k, result),
            },
          }),
        );
      }
      for (const w of record.workers) w.start(now);
    },

    containerStopped(podUid, containerName) {
      remove(podUid, containerName);
    },

    removePod(podUid) {
      clocks.delete(podUid);
      for (const name of [...(pods.get(podUid)?.keys() ?? [])]) remove(podUid, name);
    },

    isReady(podUid, containerName) {
      const r = lookup(podUid, containerName);
      return r !== undefined && isReady(r);
    },

    isStarted(podUid, containerName) {
      const r = lookup(podUid, containerName);
      return r !== undefined && isStarted(r);
    },

    stop() {
      stopped = true;
      clocks.clear();
      for (const podUid of [...pods.keys()]) for (const name of [...(pods.get(podUid)?.keys() ?? [])]) remove(podUid, name);
    },
  };
}
