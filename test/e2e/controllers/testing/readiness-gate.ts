/**
 * Holds a rollout part-way, for tests that act in the middle of one: paired
 * with startFakeKubelet (pass `gate.admits` as its `ready`), pods the gate
 * does not admit run with Ready=False. release() opens the gate: every live
 * Running pod that is not Ready is marked Ready through the status
 * subresource, now and whenever one shows up later (a kubelet write racing
 * the release comes back as a watch event, so none is missed).
 */
import { PODS } from '../../../../src/client/rest/resources.js';
import type { Client } from '../../../../src/client/rest/interface.js';
import { formatTime } from '../../../../src/machinery/meta.js';
import { isConflict, isNotFound } from '../../../../src/machinery/status.js';
import type { PodObject } from '../../../../src/controllers/util/types.js';

export interface ReadinessGateOptions {
  readonly namespace: string;
  /** Whether a pod may become Ready while the gate is closed; asked once per pod, the answer is remembered. */
  readonly admit: (pod: PodObject) => boolean;
}

export interface ReadinessGate {
  /** The fake kubelet's `ready` predicate. */
  readonly admits: (pod: PodObject) => boolean;
  /** Open the gate: every pod becomes Ready. */
  release(): Promise<void>;
  /** Errors of its writes other than conflicts and not-found (a later event retries those). */
  readonly errors: unknown[];
  stop(): void;
}

const isReady = (p: PodObject): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Lists, then watches from the list's resourceVersion, so no pod event after the call is missed. */
export async function startReadinessGate(client: Client, options: ReadinessGateOptions): Promise<ReadinessGate> {
  const pods = client.resource<PodObject>(PODS);
  const answers = new Map<string, boolean>();
  const errors: unknown[] = [];
  let released = false;

  const markReady = async (pod: PodObject): Promise<void> => {
    if (!released || pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running' || isReady(pod)) return;
    const conditions = [
      ...(pod.status.conditions ?? []).filter((c) => c.type !== 'Ready'),
      { type: 'Ready', status: 'True', lastTransitionTime: formatTime(new Date()) },
    ];
    await pods.updateStatus({ ...pod, status: { ...pod.status, conditions } }).catch((e: unknown) => {
      if (!isConflict(e) && !isNotFound(e)) errors.push(e);
    });
  };

  const list = await pods.list({ namespace: options.namespace });
  const stream = pods.watch({ namespace: options.namespace, resourceVersion: list.metadata.resourceVersion ?? '' });
  void (async () => {
    for await (const event of stream) {
      if (event.type === 'ADDED' || event.type === 'MODIFIED') await markReady(event.object);
    }
  })().catch(() => undefined);

  return {
    admits: (pod) => {
      if (released) return true;
      const name = pod.metadata.name ?? '';
      let answer = answers.get(name);
      if (answer === undefined) {
        answer = options.admit(pod);
        answers.set(name, answer);
      }
      return answer;
    },
    release: async () => {
      released = true;
      for (const pod of (await pods.list({ namespace: options.namespace })).items) await markReady(pod);
    },
    errors,
    stop: () => stream.cancel(),
  };
}
