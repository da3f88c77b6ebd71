/**
 * The pod workers: one serialised worker per pod UID that makes the runtime
 * match the pod (sandbox, volumes, init containers in order, then app
 * containers; restarts per restartPolicy with CrashLoopBackOff; graceful
 * termination with preStop hooks), and a status manager that writes the
 * pod's status through pods/status only when it changed.
 *
 * Every sandbox and container carries the labels of runtime/labels.ts, so that
 * a restarted kubelet (and the kubelet's server) find them in the runtime.
 * The most recent exited container of each container name is kept until the
 * next one exits or the pod is removed (`kubectl logs --previous`).
 */
import type { Client } from '../../client/rest/interface.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Logger } from '../../machinery/logger.js';
import type { EnvResolver } from '../env/interface.js';
import type { ProbeManager } from '../prober/interface.js';
import type { ContainerRuntime } from '../runtime/interface.js';
import type { Node, Pod } from '../types.js';
import type { ContainerMounts, VolumeManager } from '../volumes/interface.js';
import type { PodDnsOptions } from './dns-config.js';

export interface BackoffConfig {
  /** First restart delay (upstream 10 s), doubling per crash… */
  readonly initialMs: number;
  /** …up to this (upstream 5 min). */
  readonly maxMs: number;
  /** A container that ran this long without crashing starts again from initialMs (upstream 10 min). */
  readonly resetAfterMs: number;
}

export interface PodWorkersOptions {
  readonly nodeName: string;
  /** The node's addresses (status.hostIP/hostIPs; the pod IP of host-network pods). */
  readonly nodeIPs: readonly string[];
  /** `<root>/pods/<uid>/…` for volumes, `<logsDir>/<ns>_<name>_<uid>/<container>/<attempt>.log` for logs. */
  readonly rootDir: string;
  readonly logsDir: string;
  readonly runtime: ContainerRuntime;
  readonly volumes: VolumeManager;
  readonly containerMounts: ContainerMounts;
  readonly env: EnvResolver;
  /** Built by the pod workers' owner with callbacks into the workers (see PodWorkers.probeCallbacks). */
  readonly probes: ProbeManager;
  /** Writes pods/status and, for API pods that finished terminating, the final delete (uid precondition, grace 0). */
  readonly client: Client;
  readonly events: EventRecorder;
  readonly logger: Logger;
  readonly backoff: BackoffConfig;
  /** How often every pod is synced even without a change (upstream --sync-frequency, 1 min). */
  readonly resyncIntervalMs: number;
  /** The latest Node object (capacity for resourceFieldRef, addresses); undefined before registration. */
  readonly node: () => Node | undefined;
  /**
   * How often the runtime is listed to notice containers that changed state
   * (upstream's PLEG relist period, 1 s); default 1000.
   */
  readonly relistIntervalMs?: number;
  /**
   * How long after a sync that changed the runtime (started or stopped a
   * container) the pod is synced again to report what it finds, without
   * waiting for the next relist; default 100. A container that exits at once
   * (a crash loop) has exited by then and is never reported running.
   */
  readonly recheckAfterActMs?: number;
  /** How long after a failed pods/status write it is tried again (upstream's status sync period, 10 s); default 10 000. */
  readonly statusRetryIntervalMs?: number;
  /** --cluster-dns, --cluster-domain and the host's resolv.conf: each sandbox gets the pod's DNS config (dns-config.ts); absent: none. */
  readonly dns?: PodDnsOptions;
  /** Where the cgroup hierarchies are mounted, for pod cgroups on cri (default /sys/fs/cgroup; tests pass a directory of their own). */
  readonly cgroupRoot?: string;
}

export interface PodWorkers {
  /**
   * The whole desired set for this node (API pods bound to it ∪ static pods),
   * on every change. A pod with a deletionTimestamp terminates gracefully; a
   * pod absent from the set is killed at once and cleaned up (volumes, logs,
   * sandbox) once stopped.
   */
  update(pods: readonly Pod[]): void;
  /** A probe result changed: the containers' ready and started flags go into the pod's status at once, and the pod is synced soon. */
  requestSync(podUid: string): void;
  /** Kill one container for a failed liveness/startup probe; the next sync restarts it per restartPolicy. */
  killContainer(podUid: string, containerName: string, containerId: string, message: string): void;
  /** Stops syncing (never stops containers: they outlive the kubelet); resolves when in-flight syncs end. */
  stop(): Promise<void>;
}

export type NewPodWorkers = (options: PodWorkersOptions) => PodWorkers;
