/**
 * Which components `kubectl get componentstatuses` reports, and how each is
 * probed: the scheduler and the controller manager at their health URLs
 * (upstream's fixed ports unless told otherwise), then the storage as
 * `etcd-0`, `etcd-1`, … (each etcd server's /health, or the embedded store's
 * own check when there is no etcd).
 */
import { probeEtcd, probeHttp, probeStorage, PROBE_TIMEOUT_MS, type ComponentCondition } from './probe.js';

export interface ComponentStatusOptions {
  /** `--component-status-scheduler-url` (default upstream's https://127.0.0.1:10259/healthz). */
  readonly schedulerUrl?: string;
  /** `--component-status-controller-manager-url` (default upstream's https://127.0.0.1:10257/healthz). */
  readonly controllerManagerUrl?: string;
  /** `--etcd-servers`: each is probed at its /health. Absent or empty: the embedded store, probed with `storageCheck`. */
  readonly etcdServers?: readonly string[];
  /** The storage check /readyz runs; without it and without etcd servers no storage component is listed. */
  readonly storageCheck?: () => Promise<void>;
  readonly timeoutMs?: number;
}

export const DEFAULT_SCHEDULER_URL = 'https://127.0.0.1:10259/healthz';
export const DEFAULT_CONTROLLER_MANAGER_URL = 'https://127.0.0.1:10257/healthz';

/** Component name → its probe, in the order they are listed. */
export type Components = ReadonlyMap<string, () => Promise<ComponentCondition>>;

export function newComponents(options: ComponentStatusOptions = {}): Components {
  const timeout = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const components = new Map<string, () => Promise<ComponentCondition>>([
    ['scheduler', () => probeHttp(options.schedulerUrl ?? DEFAULT_SCHEDULER_URL, timeout)],
    ['controller-manager', () => probeHttp(options.controllerManagerUrl ?? DEFAULT_CONTROLLER_MANAGER_URL, timeout)],
  ]);
  const servers = options.etcdServers ?? [];
  if (servers.length > 0) {
    servers.forEach((server, i) => components.set(`etcd-${i}`, () => probeEtcd(server, timeout)));
  } else if (options.storageCheck !== undefined) {
    const check = options.storageCheck;
    components.set('etcd-0', () => probeStorage(check, timeout));
  }
  return components;
}
