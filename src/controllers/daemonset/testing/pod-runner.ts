/**
 * A stand-in for the scheduler and the kubelets in controller tests (as
 * upstream's integration tests and scheduler_perf do): it watches pods and
 * binds each unbound one (to the node its required node affinity names by
 * metadata.name, else to `defaultNode`), marks bound pods Running and Ready
 * (all of them, those `autoReady` accepts, or on markReady), and finishes
 * graceful deletions (a delete with grace period 0, as a kubelet does once
 * containers stopped). Works over any Client: the fake one or HTTPS.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatTime, type KubeObject } from '../../../machinery/meta.js';
import { isNotFound } from '../../../machinery/status.js';
import type { Client } from '../../../client/rest/interface.js';
import { PODS } from '../../../client/rest/resources.js';

type PodObject = KubeObject & Pod;

export interface PodRunnerOptions {
  readonly client: Client;
  readonly namespace?: string;
  /** Which bound pods become Running and Ready by themselves (default: all). */
  readonly autoReady?: (pod: PodObject) => boolean;
  /** Where pods without node affinity go (default: they stay unbound). */
  readonly defaultNode?: string;
}

export interface PodRunner {
  /** Make the pod Running and Ready now. */
  markReady(namespace: string, name: string): Promise<void>;
  /** Make the pod Running but not Ready (or Failed). */
  setPhase(namespace: string, name: string, phase: 'Running' | 'Failed' | 'Succeeded', ready: boolean): Promise<void>;
  stop(): void;
}

function affinityNode(pod: PodObject): string | undefined {
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const field of term.matchFields ?? []) if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1) return field.values[0];
  }
  return undefined;
}

export function startPodRunner(options: PodRunnerOptions): PodRunner {
  const pods = options.client.resource<PodObject>(PODS);
  const autoReady = options.autoReady ?? (() => true);
  let stopped = false;
  let stream: { cancel(): void } | undefined;

  async function setPhase(namespace: string, name: string, phase: 'Running' | 'Failed' | 'Succeeded', ready: boolean): Promise<void> {
    const pod = await pods.get(name, { namespace });
    const now = formatTime(new Date());
    const condition = (type: string) => ({ type, status: type === 'Ready' || type === 'ContainersReady' ? (ready ? 'True' : 'False') : 'True', lastProbeTime: null, lastTransitionTime: now });
    Object.assign(pod, {
      status: {
        ...(pod.status ?? {}),
        phase,
        conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
        podIP: '127.244.0.10',
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: '',
          ready,
          restartCount: 0,
          started: phase === 'Running',
          state: phase === 'Running' ? { running: { startedAt: now } } : { terminated: { exitCode: phase === 'Failed' ? 1 : 0, reason: phase === 'Failed' ? 'Error' : 'Completed' } },
        })),
        startTime: pod.status?.startTime ?? now,
      },
    });
    await pods.updateStatus(pod, { namespace });
  }

  async function handle(pod: PodObject): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    if (pod.metadata.deletionTimestamp) {
      await pods.delete(name, { namespace, gracePeriodSeconds: 0 });
      return;
    }
    if (!pod.spec?.nodeName) {
      const node = affinityNode(pod) ?? options.defaultNode;
      if (node !== undefined) await pods.createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: node } }, { namespace });
      return;
    }
    if (pod.status?.phase === undefined || pod.status.phase === 'Pending') {
      if (autoReady(pod)) await setPhase(namespace, name, 'Running', true);
    }
  }

  void (async () => {
    while (!stopped) {
      const watch = pods.watch(options.namespace !== undefined ? { namespace: options.namespace } : {});
      stream = watch;
      try {
        for await (const event of watch) {
          if (stopped) break;
          if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
          try {
            await handle(event.object);
          } catch (e: unknown) {
            // A conflict or a pod gone meanwhile: the next event of that pod tries again.
            if (stopped && !isNotFound(e)) return;
          }
        }
      } catch {
        // The watch ended with an error: start another one after a short pause (a backoff, not a wait).
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();

  return {
    markReady: (namespace, name) => setPhase(namespace, name, 'Running', true),
    setPhase,
    stop: () => {
      stopped = true;
      stream?.cancel();
    },
  };
}
