/**
 * The API pod source (upstream's pkg/kubelet/config/apiserver.go): one
 * list+watch of the pods bound to this node (fieldSelector
 * spec.nodeName=<node>), relisting on 410 and retrying through API server
 * outages with backoff (the client's reflector). The set is checkpointed
 * when a pod comes or goes or its spec or metadata changes (a status change
 * alone, most events, is not written). At start, while the API server cannot be reached (the first
 * list failed, or did not succeed within `checkpointGraceMs`), the
 * checkpointed pods are the set, until the first list succeeds.
 */
import { Reflector, type ReflectorChange } from '../../client/cache/reflector.js';
import { listerWatcherFor } from '../../client/cache/resource-lister-watcher.js';
import type { Client } from '../../client/rest/interface.js';
import { PODS } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import { jsonEqual } from '../../machinery/meta.js';
import type { Pod } from '../types.js';
import type { PodCheckpoint } from './checkpoint.js';
import type { PodSource } from './interface.js';

export interface ApiSourceOptions {
  readonly client: Client;
  readonly nodeName: string;
  readonly checkpoint: PodCheckpoint;
  readonly logger: Logger;
  /** How long the first list may take before the checkpoint stands in (default 5 s). */
  readonly checkpointGraceMs?: number;
  /** Reflector backoff after a failed list or watch (default 200 ms doubling to 10 s). */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export interface ApiSource extends PodSource {
  /** True once a list has succeeded (the set is the API server's, not the checkpoint's). */
  readonly synced: boolean;
}

/** What a restarted kubelet needs of a pod from the checkpoint: not its status, resourceVersion or managed fields. */
function checkpointedParts(pod: Pod): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pod.metadata as Pod['metadata'] & { managedFields?: unknown };
  return { metadata, spec: pod.spec };
}

const keyOf = (pod: Pod): string => pod.metadata.uid ?? `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;

export function newApiSource(options: ApiSourceOptions): ApiSource {
  const pods = new Map<string, Pod>();
  let onPods: ((pods: readonly Pod[]) => void) | undefined;
  let synced = false;
  let usingCheckpoint = false;
  let stopped = false;
  let graceTimer: NodeJS.Timeout | undefined;
  let checkpointed: Promise<Pod[] | undefined> | undefined;

  /** Whether the checkpoint is behind: the set of pods or a pod's spec (or metadata) changed since it was written. */
  let checkpointStale = true;
  const emit = (): void => {
    const set = [...pods.values()];
    if (checkpointStale) {
      checkpointStale = false;
      options.checkpoint.save(set);
    }
    onPods?.(set);
  };

  const fallBackToCheckpoint = (): void => {
    if (synced || usingCheckpoint || stopped || checkpointed === undefined) return;
    usingCheckpoint = true;
    clearTimeout(graceTimer);
    void checkpointed.then((items) => {
      if (synced || stopped || items === undefined) return;
      options.logger.warn({ pods: items.length }, 'the API server cannot be reached: running the checkpointed pods until it can');
      onPods?.(items);
    });
  };

  const reflector = new Reflector<Pod>(
    listerWatcherFor(options.client.resource<Pod>(PODS), { fieldSelector: `spec.nodeName=${options.nodeName}` }),
    {
      replace: (items) => {
        synced = true;
        clearTimeout(graceTimer);
        pods.clear();
        for (const p of items) pods.set(keyOf(p), p);
        checkpointStale = true;
        emit();
      },
      apply: (change: ReflectorChange<Pod>) => {
        const key = keyOf(change.object);
        const before = pods.get(key);
        if (change.type === 'DELETED') pods.delete(key);
        else pods.set(key, change.object);
        // A status write (most events: the kubelet's own) leaves the checkpoint as it is.
        if (before === undefined || change.type === 'DELETED' || !jsonEqual(checkpointedParts(before), checkpointedParts(change.object))) checkpointStale = true;
        emit();
      },
      progress: () => undefined,
    },
    {
      name: 'pods of this node',
      initialBackoffMs: options.initialBackoffMs ?? 200,
      maxBackoffMs: options.maxBackoffMs ?? 10_000,
      onError: (message, error) => {
        options.logger.warn({ err: error }, `api pod source: ${message}`);
        if (message.endsWith('list failed')) fallBackToCheckpoint();
      },
    },
  );

  return {
    name: 'api',
    get synced() {
      return synced;
    },
    async start(callback): Promise<void> {
      onPods = callback;
      checkpointed = options.checkpoint.load();
      graceTimer = setTimeout(fallBackToCheckpoint, options.checkpointGraceMs ?? 5_000);
      graceTimer.unref();
      reflector.start();
    },
    stop(): void {
      stopped = true;
      clearTimeout(graceTimer);
      reflector.stop();
    },
  };
}
