/**
 * The taint eviction controller (upstream's `taint-eviction-controller`,
 * split out of node lifecycle in 1.29): a pod on a node with NoExecute taints
 * it does not tolerate is deleted at once; one that tolerates them for
 * tolerationSeconds is deleted that long after the controller first saw it
 * so exposed (the smallest tolerationSeconds of the tolerations used), unless
 * the taints go first; one that tolerates them without a limit stays. Each
 * deletion is announced by an Event (TaintManagerEviction "Marking for
 * deletion Pod NS/NAME"), and the pod gets the DisruptionTarget condition
 * before it is deleted. Timers are the reconcile loop's requeueAfter.
 */
import type { Pod, PodCondition, Taint } from 'kubernetes-types/core/v1.js';
import { objectKey, type Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { NODES, PODS } from '../../client/rest/resources.js';
import { deepCopy, formatTime, jsonEqual, type KubeObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { ensurePodNodeNameIndex, POD_NODE_NAME_INDEX, type NodeObject } from '../nodelifecycle/node-taints.js';
import { matchingTolerations, minTolerationMs } from './tolerations.js';

type PodObject = KubeObject & Pod;

const COMPONENT = 'taint-eviction-controller';

export const noExecuteTaints = (node: NodeObject | undefined): Taint[] => (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');

export interface TaintEvictionDeps {
  readonly nodes: Indexer<NodeObject>;
  /** Pods, with the POD_NODE_NAME_INDEX. */
  readonly pods: Indexer<PodObject>;
  readonly client: Client;
  readonly recorder: EventRecorder;
  readonly now?: () => number;
}

export class TaintEvictionController {
  private readonly now: () => number;
  /** Pods with a deletion scheduled: when the controller first saw them tainted and tolerating it for a while. */
  private readonly scheduled = new Map<string, number>();

  constructor(private readonly deps: TaintEvictionDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Cancel a scheduled deletion; with an Event when the pod is still there to be told. */
  private cancel(key: string, pod: PodObject | undefined): void {
    if (!this.scheduled.delete(key) || pod === undefined) return;
    this.deps.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const pod = this.deps.pods.get(key);
    const nodeName = pod?.spec?.nodeName ?? '';
    if (pod === undefined || nodeName === '' || pod.metadata.deletionTimestamp !== undefined) {
      this.scheduled.delete(key);
      return;
    }
    const taints = noExecuteTaints(this.deps.nodes.get(nodeName));
    if (taints.length === 0) {
      this.cancel(key, pod);
      return;
    }
    const { allTolerated, used } = matchingTolerations(taints, pod.spec?.tolerations ?? []);
    const now = this.now();
    if (allTolerated) {
      const tolerationMs = minTolerationMs(used);
      if (tolerationMs < 0) {
        this.cancel(key, pod);
        return;
      }
      const since = this.scheduled.get(key) ?? now;
      this.scheduled.set(key, since);
      const remaining = since + tolerationMs - now;
      if (remaining > 0) return { requeueAfterMs: remaining };
    }
    await this.evict(key, pod, now);
  }

  private async evict(key: string, pod: PodObject, now: number): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    this.deps.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    const pods = this.deps.client.resource<PodObject>(PODS);
    try {
      const copy = deepCopy(pod);
      const condition: PodCondition = {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
        lastTransitionTime: formatTime(new Date(now)),
      };
      const conditions = (copy.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
      await pods.updateStatus({ ...copy, status: { ...copy.status, conditions: [...conditions, condition] } });
      await pods.delete(name, { namespace });
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
    }
    this.scheduled.delete(key);
  }
}

export const taintEvictionController: ControllerDefinition = {
  name: 'taint-eviction-controller',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const nodes = ctx.informers.informerFor<NodeObject>(NODES);
    const pods = ctx.informers.informerFor<PodObject>(PODS);
    ensurePodNodeNameIndex(pods);
    const controller = new TaintEvictionController({
      nodes: nodes.indexer,
      pods: pods.indexer,
      client: ctx.client,
      recorder: ctx.events.recorderFor(COMPONENT),
    });
    const loop = startReconcileLoop(ctx, { name: 'taint-eviction-controller', reconcile: (key) => controller.reconcile(key) });
    const enqueuePodsOn = (node: NodeObject): void => {
      for (const pod of pods.indexer.byIndex(POD_NODE_NAME_INDEX, node.metadata.name ?? '')) loop.enqueue(objectKey(pod));
    };
    pods.addEventHandler({
      onAdd: (pod) => loop.enqueue(objectKey(pod)),
      onUpdate: (old, pod) => {
        if (old.spec?.nodeName !== pod.spec?.nodeName || !jsonEqual(old.spec?.tolerations ?? [], pod.spec?.tolerations ?? []) || old.metadata.deletionTimestamp !== pod.metadata.deletionTimestamp) {
          loop.enqueue(objectKey(pod));
        }
      },
      onDelete: (pod) => loop.enqueue(objectKey(pod)),
    });
    nodes.addEventHandler({
      onAdd: enqueuePodsOn,
      onUpdate: (old, node) => {
        if (!jsonEqual(noExecuteTaints(old), noExecuteTaints(node))) enqueuePodsOn(node);
      },
      onDelete: enqueuePodsOn,
    });
  },
};
