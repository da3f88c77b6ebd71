/**
 * A stand-in for the scheduler and for one kubelet per node, for end-to-end
 * tests in which a node dies: it watches the pods of a namespace and
 * - binds each unbound pod to `scheduleTo` (pods/binding), as a scheduler would;
 * - for pods on a node whose kubelet runs: marks them Running and Ready, and
 *   finishes their graceful deletion (a delete with grace period 0), as a
 *   kubelet does once the containers are stopped;
 * - leaves pods on a stopped node alone: they keep their last status, and an
 *   evicted one stays Terminating until that node's kubelet starts again.
 * It also records the name of every pod it ever saw, to count creations.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../../../src/client/rest/interface.js';
import { PODS } from '../../../../src/client/rest/resources.js';
import { formatTime, type KubeObject } from '../../../../src/machinery/meta.js';
import { isConflict, isNotFound } from '../../../../src/machinery/status.js';

type PodObject = KubeObject & Pod;

export interface NodeStandInOptions {
  readonly client: Client;
  readonly namespace: string;
  /** The nodes whose kubelet runs at the start. */
  readonly running: readonly string[];
  /** Where new pods are bound at the start. */
  readonly scheduleTo: string;
}

export interface NodeStandIn {
  /** Where new pods are bound from now on. */
  scheduleTo(node: string): void;
  /** The kubelet of `node` stops: its pods are no longer touched. */
  stopKubelet(node: string): void;
  /** The kubelet of `node` starts again and handles the pods already bound there. */
  startKubelet(node: string): Promise<void>;
  /** Names of every pod seen so far (ADDED events). */
  readonly seen: ReadonlySet<string>;
  /** Errors of writes other than conflicts and not-found (the next event of the pod retries those). */
  readonly errors: readonly unknown[];
  stop(): void;
}

export function startNodeStandIn(options: NodeStandInOptions): NodeStandIn {
  const pods = options.client.resource<PodObject>(PODS);
  const running = new Set(options.running);
  let target = options.scheduleTo;
  const seen = new Set<string>();
  const errors: unknown[] = [];
  let stopped = false;
  let stream: { cancel(): void } | undefined;

  async function runningAndReady(pod: PodObject): Promise<void> {
    const now = formatTime(new Date());
    const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: now });
    const status = {
      ...(pod.status ?? {}),
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '', imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } })),
      startTime: pod.status?.startTime ?? now,
    };
    await pods.updateStatus({ ...pod, status });
  }

  async function handle(pod: PodObject): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const node = pod.spec?.nodeName;
    if (!node) {
      if (pod.metadata.deletionTimestamp) return;
      await pods
        .createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: target } }, { namespace })
        .catch((e: unknown) => {
          // The cluster's own scheduler may have bound it first: that binding's event brings the pod back here too.
          if (!isConflict(e)) throw e;
        });
      return; // the binding's MODIFIED event brings the pod back here
    }
    if (!running.has(node)) return;
    if (pod.metadata.deletionTimestamp) {
      await pods.delete(name, { namespace, gracePeriodSeconds: 0 });
      return;
    }
    if (pod.status?.phase === undefined || pod.status.phase === 'Pending') await runningAndReady(pod);
  }

  async function handleQuietly(pod: PodObject): Promise<void> {
    try {
      await handle(pod);
    } catch (e: unknown) {
      if (!isNotFound(e) && !isConflict(e) && !stopped) errors.push(e);
    }
  }

  void (async () => {
    while (!stopped) {
      const watch = pods.watch({ namespace: options.namespace });
      stream = watch;
      try {
        for await (const event of watch) {
          if (stopped) break;
          if (event.type === 'ADDED') seen.add(event.object.metadata.name ?? '');
          if (event.type === 'ADDED' || event.type === 'MODIFIED') await handleQuietly(event.object);
        }
      } catch {
        // The watch ended with an error: open another one after a short pause (a backoff, not a wait);
        // it replays ADDED for every pod, which is harmless.
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();

  return {
    scheduleTo: (node) => {
      target = node;
    },
    stopKubelet: (node) => {
      running.delete(node);
    },
    startKubelet: async (node) => {
      running.add(node);
      const list = await pods.list({ namespace: options.namespace });
      for (const pod of list.items) if (pod.spec?.nodeName === node) await handleQuietly(pod);
    },
    seen,
    errors,
    stop: () => {
      stopped = true;
      stream?.cancel();
    },
  };
}
