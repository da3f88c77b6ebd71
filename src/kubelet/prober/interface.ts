/**
 * Probes: startup, liveness and readiness (exec, httpGet, tcpSocket, grpc),
 * one worker per probe and container, with upstream's timing fields and
 * defaults (periodSeconds 10, timeoutSeconds 1, successThreshold 1,
 * failureThreshold 3, initialDelaySeconds 0). The pod workers tell the
 * manager when containers start and stop; the manager tells them, through
 * the callbacks, when a container must be killed or a pod's readiness moved.
 */
import type { RuntimeService } from '../runtime/interface.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Pod } from '../types.js';
import type { Registry } from 'prom-client';

export type ProbeKind = 'startup' | 'liveness' | 'readiness';

export interface ProbeManagerOptions {
  readonly runtime: RuntimeService;
  /** Warning events `Unhealthy` ("Liveness probe failed: …") on the pod, as upstream. */
  readonly events: EventRecorder;
  /** Readiness or startup state of a container changed: the pod's status must be written again. */
  onChange(podUid: string): void;
  /** A liveness or startup probe failed failureThreshold times: kill the container (restart per restartPolicy). The message goes in the Killing event. */
  onFailure(podUid: string, containerName: string, containerId: string, kind: 'startup' | 'liveness', message: string): void;
  /** Where prober_probe_total and prober_probe_duration_seconds go (upstream's /metrics/probes); none without it. */
  readonly registry?: Registry;
  /**
   * k8ts only, for tests: the length of one API second in milliseconds
   * (initialDelaySeconds, periodSeconds and timeoutSeconds are whole seconds
   * in the API). Default 1000.
   */
  readonly secondMs?: number;
}

export interface ProbeManager {
  /**
   * The pod is about to be synced (upstream's AddPod, called once its volumes
   * are ready and before its containers are made). The first call starts the
   * pod's probe clock: every probe of the pod then ticks at whole periods
   * from that moment, as upstream's per-pod workers do, so a container's
   * first probe comes at the next tick after it starts, not at once. Later
   * calls change nothing.
   */
  addPod(pod: Pod): void;
  /**
   * A container of the pod is running (a new containerId replaces the probes
   * of the old one). `podIP` is where httpGet/tcpSocket/grpc probes connect
   * when the probe names no host (the node IP for host-network pods).
   */
  containerStarted(pod: Pod, containerName: string, containerId: string, podIP: string): void;
  /** The container is no longer running: its probes stop and its results are forgotten. */
  containerStopped(podUid: string, containerName: string): void;
  /** The pod is gone: every probe of it stops and its probe clock is forgotten. */
  removePod(podUid: string): void;
  /**
   * Readiness: true when the container has no readiness probe and has started, or its probe has succeeded successThreshold times since its last failure streak.
   * False for a container the manager was not told has started, or that it saw exit.
   */
  isReady(podUid: string, containerName: string): boolean;
  /** Startup: true when the container has no startup probe, or it has succeeded (status.containerStatuses[].started); false, as isReady, for a container not known to run. */
  isStarted(podUid: string, containerName: string): boolean;
  /** Stops every worker. */
  stop(): void;
}

export type NewProbeManager = (options: ProbeManagerOptions) => ProbeManager;
