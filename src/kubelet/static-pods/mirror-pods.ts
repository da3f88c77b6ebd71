/**
 * Mirror pods (upstream's pkg/kubelet/pod/mirror_client.go and the static pod
 * part of syncPod): for each static pod, a copy in the API server with the
 * same namespace and name, the annotation kubernetes.io/config.mirror = the
 * static pod's kubernetes.io/config.hash, and the Node as its controller
 * owner, so that `kubectl get pods` shows what the node runs by itself.
 *
 * - A static pod with no mirror pod gets one (once the Node exists and is not
 *   being deleted); AlreadyExists with the same hash is success.
 * - A mirror pod whose hash differs from its static pod's, or that is being
 *   deleted, is deleted (grace period 0, uid precondition) and made again.
 * - A mirror pod with no static pod is deleted.
 *
 * Reconciling is serialised; changes arriving meanwhile fold into one more
 * pass. It waits until the API pods have been listed (it must see the mirror
 * pods that exist) and, for deletions of orphans, until the static pods have
 * been read.
 */
import type { Client } from '../../client/rest/interface.js';
import { PODS } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../machinery/status.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION, podFullName, type Node, type Pod } from '../types.js';

export interface MirrorPodsState {
  readonly staticPods: readonly Pod[];
  /** The mirror pods the API server has on this node. */
  readonly mirrorPods: readonly Pod[];
  /** The API pods have been listed (mirrorPods is the truth). */
  readonly apiSynced: boolean;
  /** The static pod manifests have been read (staticPods is the truth). */
  readonly staticSynced: boolean;
}

export interface MirrorPodsOptions {
  readonly client: Client;
  readonly nodeName: string;
  readonly node: () => Node | undefined;
  readonly logger: Logger;
  /** Retry delay after a failed pass (default 1 s). */
  readonly retryMs?: number;
}

export interface MirrorPods {
  update(state: MirrorPodsState): void;
  /** Resolves when no pass is running or queued. */
  idle(): Promise<void>;
  stop(): void;
}

const hashOf = (pod: Pod): string => pod.metadata.annotations?.[CONFIG_HASH_ANNOTATION] ?? '';
const mirrorHashOf = (pod: Pod): string | undefined => pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION];

/** Upstream's IsMirrorPodOf: same full name and the mirror pod carries the static pod's hash. */
export const isMirrorPodOf = (mirror: Pod, pod: Pod): boolean => podFullName(mirror) === podFullName(pod) && mirrorHashOf(mirror) === hashOf(pod);

/** The mirror pod the kubelet creates for a static pod and its Node. */
export function mirrorPodFor(pod: Pod, node: Node): Pod {
  const { status: _status, ...copy } = structuredClone(pod);
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = copy.metadata;
  return {
    ...copy,
    metadata: {
      ...metadata,
      annotations: { ...(metadata.annotations ?? {}), [CONFIG_MIRROR_ANNOTATION]: hashOf(pod) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '', uid: node.metadata.uid ?? '', controller: true }],
    },
  };
}

export function newMirrorPods(options: MirrorPodsOptions): MirrorPods {
  const pods = options.client.resource<Pod>(PODS);
  const log = options.logger;
  let latest: MirrorPodsState | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const remove = async (mirror: Pod, why: string): Promise<boolean> => {
    try {
      await pods.delete(mirror.metadata.name ?? '', {
        namespace: mirror.metadata.namespace ?? 'default',
        gracePeriodSeconds: 0,
        ...(mirror.metadata.uid !== undefined ? { preconditions: { uid: mirror.metadata.uid } } : {}),
      });
      log.info({ pod: podFullName(mirror) }, why);
      return true;
    } catch (e: unknown) {
      // Gone already, or replaced by a newer one (the uid precondition failed): either way this one is not there.
      if (isNotFound(e) || isConflict(e)) return true;
      throw e;
    }
  };

  const create = async (pod: Pod): Promise<void> => {
    const node = options.node();
    if (node?.metadata.uid === undefined) {
      log.debug({ pod: podFullName(pod) }, 'No need to create a mirror pod, since failed to get node info from the cluster');
      return;
    }
    if (node.metadata.deletionTimestamp !== undefined) {
      log.debug({ pod: podFullName(pod) }, 'No need to create a mirror pod, since node has been removed from the cluster');
      return;
    }
    try {
      await pods.create(mirrorPodFor(pod, node), { namespace: pod.metadata.namespace ?? 'default' });
      log.info({ pod: podFullName(pod) }, 'Created a mirror pod for static pod');
    } catch (e: unknown) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await pods.get(pod.metadata.name ?? '', { namespace: pod.metadata.namespace ?? 'default' });
      if (mirrorHashOf(existing) !== hashOf(pod)) throw e;
    }
  };

  const pass = async (state: MirrorPodsState): Promise<void> => {
    if (!state.apiSynced) return;
    const mirrors = new Map(state.mirrorPods.map((m) => [podFullName(m), m]));
    const failures: unknown[] = [];
    const attempt = async (fn: () => Promise<void>): Promise<void> => {
      try {
        await fn();
      } catch (e: unknown) {
        failures.push(e);
      }
    };
    for (const pod of state.staticPods) {
      const mirror = mirrors.get(podFullName(pod));
      await attempt(async () => {
        let deleted = false;
        if (mirror !== undefined && (mirror.metadata.deletionTimestamp !== undefined || !isMirrorPodOf(mirror, pod))) {
          deleted = await remove(mirror, 'Deleted mirror pod because it is outdated');
        }
        if (mirror === undefined || deleted) await create(pod);
      });
    }
    if (state.staticSynced) {
      const staticNames = new Set(state.staticPods.map(podFullName));
      for (const mirror of state.mirrorPods) {
        if (!staticNames.has(podFullName(mirror))) {
          await attempt(async () => void (await remove(mirror, 'Deleted orphaned mirror pod')));
        }
      }
    }
    if (failures.length > 0) {
      for (const e of failures) log.error({ err: e }, 'Failed to sync mirror pods');
      throw failures[0];
    }
  };

  const schedule = (): void => {
    if (stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const state = latest;
        if (state === undefined) return;
        try {
          await pass(state);
        } catch {
          clearTimeout(retry);
          retry = setTimeout(schedule, options.retryMs ?? 1_000);
          retry.unref();
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
  };

  return {
    update(state): void {
      latest = state;
      schedule();
    },
    async idle(): Promise<void> {
      while (running !== undefined) await running;
    },
    stop(): void {
      stopped = true;
      clearTimeout(retry);
    },
  };
}
