/**
 * A stand-in for the scheduler and kubelet in controller tests (unit tests
 * over the fake client, and end-to-end tests over a real API server): it
 * watches pods and, through the API only,
 * - binds a new pod to `nodeName` (pods/binding) when one is given,
 * - marks it Running and Ready (Ready False for pods `ready` refuses) through
 *   the status subresource,
 * - and finishes a graceful deletion with a delete of grace period 0, as a
 *   kubelet does once the containers are stopped.
 */
import { PODS } from '../../../client/rest/resources.js';
import type { Client } from '../../../client/rest/interface.js';
import { formatTime } from '../../../machinery/meta.js';
import { isConflict } from '../../../machinery/status.js';
import type { PodObject } from '../../util/types.js';

export interface FakeKubeletOptions {
  /** Whether a pod becomes ready (default: all do). */
  readonly ready?: (pod: PodObject) => boolean;
  readonly namespace?: string;
  /** Bind unscheduled pods to this node first (default: leave spec.nodeName alone). */
  readonly nodeName?: string;
  /** Called with every error of a write (default: ignored; the next event retries). */
  readonly onError?: (error: unknown) => void;
}

export interface FakeKubelet {
  stop(): void;
  /** Resolves when the watch loop has ended. */
  readonly done: Promise<void>;
}

export function startFakeKubelet(client: Client, options: FakeKubeletOptions = {}): FakeKubelet {
  const pods = client.resource<PodObject>(PODS);
  const stream = pods.watch(options.namespace === undefined ? {} : { namespace: options.namespace });
  const handle = async (pod: PodObject): Promise<void> => {
    const name = pod.metadata.name ?? '';
    const namespace = pod.metadata.namespace ?? '';
    if (pod.metadata.deletionTimestamp) {
      await pods.delete(name, { namespace, gracePeriodSeconds: 0 });
      return;
    }
    if (options.nodeName !== undefined && !pod.spec?.nodeName) {
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: options.nodeName } };
      await pods.createSubresource(name, 'binding', binding, { namespace }).catch((e: unknown) => {
        // The cluster's own scheduler may have bound it first: that binding's event brings the pod back here too.
        if (!isConflict(e)) throw e;
      });
      return; // the binding's MODIFIED event brings the pod back here
    }
    if (pod.status?.phase === 'Running') return;
    const ready = options.ready?.(pod) ?? true;
    const time = formatTime(new Date());
    const status = {
      ...pod.status,
      phase: 'Running',
      conditions: [
        ...(pod.status?.conditions ?? []).filter((c) => c.type !== 'Ready'),
        { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: time },
      ],
    };
    await pods.updateStatus({ ...pod, status });
  };
  const done = (async () => {
    try {
      for await (const event of stream) {
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
        await handle(event.object).catch((e: unknown) => options.onError?.(e));
      }
    } catch {
      // the watch ended with an error: the test is over
    }
  })();
  return { stop: () => stream.cancel(), done };
}
