/**
 * A stand-in for the scheduler and kubelet in controller unit tests: it
 * watches pods and marks every new one Running and Ready (through
 * updateStatus), so that ReplicaSets report available replicas. A test may
 * hold some pods back (`ready: false`) to model a rollout that cannot
 * progress.
 */
import { PODS } from '../../../client/rest/resources.js';
import type { Client } from '../../../client/rest/interface.js';
import { formatTime } from '../../../machinery/meta.js';
import type { PodObject } from '../../util/types.js';

export interface FakeKubeletOptions {
  /** Whether a pod becomes ready (default: all do). */
  readonly ready?: (pod: PodObject) => boolean;
  readonly namespace?: string;
}

export interface FakeKubelet {
  stop(): void;
  /** Resolves when the watch loop has ended. */
  readonly done: Promise<void>;
}

export function startFakeKubelet(client: Client, options: FakeKubeletOptions = {}): FakeKubelet {
  const pods = client.resource<PodObject>(PODS);
  const stream = pods.watch(options.namespace === undefined ? {} : { namespace: options.namespace });
  const done = (async () => {
    try {
      for await (const event of stream) {
        const pod = event.object;
        if (event.type !== 'ADDED' || pod.metadata.deletionTimestamp || pod.status?.phase === 'Running') continue;
        const ready = options.ready?.(pod) ?? true;
        const time = formatTime(new Date());
        const status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: time }] };
        await pods.updateStatus({ ...pod, status }).catch(() => undefined);
      }
    } catch {
      // the watch ended with an error: the test is over
    }
  })();
  return { stop: () => stream.cancel(), done };
}
