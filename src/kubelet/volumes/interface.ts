/**
 * Volumes and the API objects they (and env) are made from: the contract
 * between the pod workers and the volume plugins.
 *
 * Layout on disk (DESIGN §5, under the kubelet's root directory):
 * `<root>/pods/<podUID>/volumes/<plugin>/<volumeName>` as upstream
 * (`kubernetes.io~empty-dir`, `kubernetes.io~configmap`, `kubernetes.io~secret`,
 * `kubernetes.io~downward-api`, `kubernetes.io~projected`). hostPath volumes
 * are the host path itself. configMap/secret/downwardAPI/projected contents
 * are written atomically as upstream's AtomicWriter does (a `..data` symlink to
 * a timestamped directory, one symlink per key), so a reader never sees half
 * an update.
 */
import type { KeyValue, Mount } from '../runtime/interface.js';
import type { ConfigMap, ContainerSpec, Pod, Secret, Service } from '../types.js';

/** The API objects a pod's volumes and env read, fetched with the kubelet's own identity (the Node authorizer lets it read only its pods' objects). */
export interface PodObjectSource {
  /** undefined when it does not exist (404); other failures reject. */
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  /** The services of a namespace, for the docker-link env vars of enableServiceLinks. */
  services(namespace: string): Promise<Service[]>;
  /** A bound service-account token (TokenRequest, bound to the pod) for a projected serviceAccountToken source. */
  serviceAccountToken(pod: Pod, request: { readonly audience?: string; readonly expirationSeconds: number }): Promise<{ readonly token: string; readonly expirationTimestamp: string }>;
}

/** A volume could not be set up; the pod workers report it as an Event (reason FailedMount) and retry. */
export class VolumeError extends Error {
  constructor(
    readonly volume: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VolumeError';
  }
}

export interface VolumeManager {
  /**
   * Makes every volume of the pod exist on disk, or refreshes it (configMap,
   * secret, downwardAPI and projected contents follow their sources; tokens
   * are renewed at 80% of their life). Idempotent; called on every sync of a
   * running pod. Resolves with volume name → host path. Rejects with a
   * VolumeError naming the first volume that failed (a missing configMap
   * that is not optional: `configmap "x" not found`).
   */
  setUpPod(pod: Pod): Promise<ReadonlyMap<string, string>>;
  /** Removes the pod's volume directories (never a hostPath's contents). Idempotent. */
  tearDownPod(podUid: string): Promise<void>;
  /** UIDs of the pods that have a directory under `<root>/pods/` (orphans are torn down after a restart). */
  podsOnDisk(): Promise<string[]>;
}

/**
 * The CRI mounts of one container: its volumeMounts (with subPath) resolved against the pod's set-up volumes.
 * `env` (the container's resolved environment) is used only to expand subPathExpr.
 */
export type ContainerMounts = (container: ContainerSpec, volumes: ReadonlyMap<string, string>, env?: readonly KeyValue[]) => Mount[];
