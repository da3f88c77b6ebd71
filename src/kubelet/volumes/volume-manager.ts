/**
 * The pod's volumes on disk (interface.ts has the contract and the layout):
 * `<rootDir>/pods/<uid>/volumes/<plugin>/<name>` for emptyDir, configMap,
 * secret, downwardAPI and projected volumes, and the host's own path for
 * hostPath. Each setUpPod makes missing volumes and rewrites the contents of
 * configMap, secret, downwardAPI and projected volumes when their sources
 * changed (atomically, atomic-writer.ts), so a running pod follows its
 * ConfigMaps, its labels and its renewed tokens; when a refresh fails (the
 * API server is away) a volume set up before keeps its contents. Calls for
 * one pod run one at a time. With refreshIntervalMs, a pod whose volumes were
 * all set up less than that long ago, for the same labels, annotations and
 * spec, is not looked at again: as upstream's kubelet remounts such volumes
 * once per sync period, not on every sync of the pod (a starting pod is
 * synced many times in its first seconds, and each refresh reads every
 * projected file back to compare it). Other volume types (persistentVolumeClaim, csi, nfs, …) fail
 * with a VolumeError: this kubelet has no plugin for them.
 */
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Volume } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../machinery/logger.js';
import type { Node, Pod } from '../types.js';
import { writeAtomically, type FileProjection } from './atomic-writer.js';
import { VolumeError, type PodObjectSource, type VolumeManager } from './interface.js';
import { CONFIG_MAP_PLUGIN, configMapPayload } from './plugins/config-map.js';
import { DOWNWARD_API_PLUGIN, downwardApiPayload } from './plugins/downward-api.js';
import { EMPTY_DIR_PLUGIN, setUpEmptyDir } from './plugins/empty-dir.js';
import { setUpHostPath } from './plugins/host-path.js';
import { PROJECTED_PLUGIN, projectedPayload } from './plugins/projected.js';
import { SECRET_PLUGIN, secretPayload } from './plugins/secret.js';
import { newTokenCache } from './token-cache.js';

export interface VolumeManagerOptions {
  /** The kubelet's root directory (pods live under `<rootDir>/pods/`). */
  readonly rootDir: string;
  readonly source: PodObjectSource;
  readonly logger?: Logger;
  /** The latest Node: its allocatable is the limit of a container that sets none (downward API resourceFieldRef). */
  readonly node?: () => Node | undefined;
  /** Not needed by any plugin (the API server binds tokens to the node itself); accepted for the kubelet's wiring. */
  readonly nodeName?: string;
  /** Milliseconds since the epoch, for token renewal (tests pass a fake). */
  readonly clock?: () => number;
  /** How long a pod's volumes, once set up, are left alone while the pod is unchanged (default 0: refreshed on every call). The kubelet passes its sync period. */
  readonly refreshIntervalMs?: number;
}

interface SetUpRecord {
  readonly at: number;
  /** The parts of the pod its volumes are made from: labels and annotations (downward API) and the spec. */
  readonly podKey: string;
  readonly paths: ReadonlyMap<string, string>;
}

/** Kept per pod object: the kubelet never changes a pod it was given (a changed pod comes as a new object), and a starting pod is synced many times. */
const volumeKeys = new WeakMap<Pod, string>();
function volumeKey(pod: Pod): string {
  let key = volumeKeys.get(pod);
  if (key === undefined) {
    key = JSON.stringify([pod.metadata.labels, pod.metadata.annotations, pod.spec]);
    volumeKeys.set(pod, key);
  }
  return key;
}

/** Volume types this kubelet has no plugin for, by their field name. */
const UNSUPPORTED_SOURCES = [
  'persistentVolumeClaim', 'ephemeral', 'csi', 'nfs', 'iscsi', 'fc', 'rbd', 'cephfs', 'cinder', 'glusterfs', 'awsElasticBlockStore',
  'gcePersistentDisk', 'azureDisk', 'azureFile', 'vsphereVolume', 'portworxVolume', 'photonPersistentDisk', 'quobyte', 'scaleIO',
  'storageos', 'flocker', 'flexVolume', 'gitRepo', 'image',
];

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

export function newVolumeManager(options: VolumeManagerOptions): VolumeManager {
  const { rootDir, source, logger } = options;
  const clock = options.clock ?? Date.now;
  const tokens = newTokenCache({ source, clock, logger });
  const refreshIntervalMs = options.refreshIntervalMs ?? 0;
  /** Pod uid → its last complete set-up (only with a refresh interval). */
  const lastSetUp = new Map<string, SetUpRecord>();
  /** Pods (by uid) of which a volume kept old contents in the current set-up because its refresh failed: tried again on the next call. */
  const refreshFailed = new Set<string>();
  const podsDir = join(rootDir, 'pods');
  /** The tail of each pod's chain of calls, so that calls for one pod never overlap. */
  const queues = new Map<string, Promise<unknown>>();

  function serialised<T>(uid: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(uid) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    queues.set(uid, tail);
    void tail.then(() => {
      if (queues.get(uid) === tail) queues.delete(uid);
    });
    return next;
  }

  const allocatable = (): Readonly<Record<string, string>> | undefined => options.node?.()?.status?.allocatable;

  async function writeVolume(pod: Pod, plugin: string, name: string, payload: () => Promise<Map<string, FileProjection>>): Promise<string> {
    const dir = join(podsDir, pod.metadata.uid ?? '', 'volumes', plugin, name);
    let files: Map<string, FileProjection>;
    try {
      files = await payload();
    } catch (e: unknown) {
      // Set up before: keep what it has (as upstream, a failed refresh never unmounts), so that a pod
      // keeps running, and its crashed containers restart, while the API server is away.
      if (await exists(join(dir, '..data'))) {
        refreshFailed.add(pod.metadata.uid ?? '');
        logger?.warn({ pod: `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`, volume: name, err: e }, 'could not refresh a volume; it keeps its current contents');
        return dir;
      }
      throw e;
    }
    await mkdir(dir, { recursive: true, mode: 0o755 });
    if (await writeAtomically(dir, files)) logger?.debug({ pod: pod.metadata.name, volume: name }, 'volume contents written');
    return dir;
  }

  async function setUpVolume(pod: Pod, volume: Volume): Promise<string> {
    const namespace = pod.metadata.namespace ?? '';
    const { name } = volume;
    if (volume.hostPath !== undefined) return setUpHostPath(volume.hostPath);
    if (volume.configMap !== undefined) {
      const { name: object = '', items, defaultMode, optional = false } = volume.configMap;
      return writeVolume(pod, CONFIG_MAP_PLUGIN, name, async () => {
        const configMap = await source.configMap(namespace, object);
        if (configMap === undefined && !optional) throw new Error(`configmap "${object}" not found`);
        return configMapPayload({ configMap, items, defaultMode, optional });
      });
    }
    if (volume.secret !== undefined) {
      const { secretName = '', items, defaultMode, optional = false } = volume.secret;
      return writeVolume(pod, SECRET_PLUGIN, name, async () => {
        const secret = await source.secret(namespace, secretName);
        if (secret === undefined && !optional) throw new Error(`secret "${secretName}" not found`);
        return secretPayload({ secret, items, defaultMode, optional });
      });
    }
    if (volume.downwardAPI !== undefined) {
      const { items, defaultMode } = volume.downwardAPI;
      return writeVolume(pod, DOWNWARD_API_PLUGIN, name, async () => downwardApiPayload({ pod, items, defaultMode, allocatable: allocatable() }));
    }
    if (volume.projected !== undefined) {
      const projected = volume.projected;
      return writeVolume(pod, PROJECTED_PLUGIN, name, () => projectedPayload({ pod, source: projected, objects: source, tokens, allocatable: allocatable() }));
    }
    const unsupported = UNSUPPORTED_SOURCES.find((field) => (volume as unknown as Record<string, unknown>)[field] !== undefined);
    if (unsupported !== undefined) throw new Error(`no volume plugin matched: ${unsupported} volumes are not supported by this kubelet`);
    // emptyDir, and a volume with no source at all (the API defaults that to emptyDir).
    return setUpEmptyDir(join(podsDir, pod.metadata.uid ?? '', 'volumes', EMPTY_DIR_PLUGIN, name));
  }

  return {
    setUpPod(pod) {
      const uid = pod.metadata.uid ?? '';
      return serialised(uid, async () => {
        if (uid === '') throw new VolumeError('', 'the pod has no metadata.uid');
        const podKey = refreshIntervalMs > 0 ? volumeKey(pod) : '';
        const last = lastSetUp.get(uid);
        if (last !== undefined && last.podKey === podKey && clock() - last.at < refreshIntervalMs) return last.paths;
        const startedAt = clock();
        refreshFailed.delete(uid);
        await mkdir(join(podsDir, uid, 'volumes'), { recursive: true, mode: 0o750 });
        const paths = new Map<string, string>();
        for (const volume of pod.spec?.volumes ?? []) {
          try {
            paths.set(volume.name, await setUpVolume(pod, volume));
          } catch (e: unknown) {
            throw new VolumeError(volume.name, e instanceof Error ? e.message : String(e), { cause: e });
          }
        }
        if (refreshIntervalMs > 0 && !refreshFailed.has(uid)) lastSetUp.set(uid, { at: startedAt, podKey, paths });
        return paths;
      });
    },

    tearDownPod(podUid) {
      return serialised(podUid, async () => {
        tokens.forget(podUid);
        lastSetUp.delete(podUid);
        if (podUid === '' || podUid.includes('/') || podUid === '.' || podUid === '..') return;
        // rm never follows symlinks: a hostPath is never under the pod's directory, and links inside volumes are removed, not followed.
        await rm(join(podsDir, podUid), { recursive: true, force: true });
      });
    },

    async podsOnDisk() {
      try {
        return (await readdir(podsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
      } catch (e: unknown) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}
