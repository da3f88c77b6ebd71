/**
 * The pod garbage collector (upstream `pod-garbage-collector`, alias `podgc`):
 * every 20 s it force-deletes the pods no kubelet will ever finish —
 * - pods bound to a node that no longer exists (after 40 s of quarantine and
 *   a fresh GET of the node), marked Failed with a DisruptionTarget condition
 *   (reason DeletionByPodGC) first, since nothing else would end their phase;
 * - pods being deleted that were never scheduled;
 * - the oldest terminated pods (Succeeded or Failed, evicted ones first) over
 *   --terminated-pod-gc-threshold (12500).
 * A pod not yet Succeeded or Failed is set Failed through a server-side apply
 * of its status by the field manager `PodGC`, then deleted with a grace period
 * of 0, as upstream's markFailedAndDeletePod does.
 */
import type { PodCondition } from 'kubernetes-types/core/v1.js';
import { NODES, PODS } from '../../client/rest/resources.js';
import { formatTime, type KubeObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import type { PodObject } from '../util/types.js';


/** Upstream's gcCheckPeriod and quarantineTime. */
const GC_CHECK_PERIOD_MS = 20_000;
const QUARANTINE_MS = 40_000;
const FIELD_MANAGER = 'PodGC';

export interface PodGcOptions {
  /** The clock (tests inject their own). */
  readonly now?: () => number;
  /** How often the collector looks (upstream: 20 s, no flag). */
  readonly checkPeriodMs?: number;
  /** How long a pod's node must be missing from the cache before it is looked up (upstream: 40 s, no flag). */
  readonly quarantineMs?: number;
}

const isTerminated = (pod: PodObject): boolean => {
  const phase = pod.status?.phase;
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
};

/** Evicted pods first, then the oldest, then by name (upstream's byEvictionAndCreationTimestamp). */
function byEvictionAndCreation(a: PodObject, b: PodObject): number {
  const evicted = (p: PodObject): number => (p.status?.reason === 'Evicted' ? 0 : 1);
  if (evicted(a) !== evicted(b)) return evicted(a) - evicted(b);
  const at = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (at !== bt) return at - bt;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}

export function newPodGcController(options: PodGcOptions = {}): ControllerDefinition {
  const now = options.now ?? Date.now;
  const checkPeriodMs = options.checkPeriodMs ?? GC_CHECK_PERIOD_MS;
  const quarantineMs = options.quarantineMs ?? QUARANTINE_MS;
  return {
    name: 'podgc',
    enabledByDefault: true,
    start(ctx: ControllerContext): void {
      const podInformer = ctx.informers.informerFor<PodObject>(PODS);
      const nodeInformer = ctx.informers.informerFor<KubeObject>(NODES);
      const pods = ctx.client.resource<PodObject>(PODS);
      const nodes = ctx.client.resource(NODES);
      const log = ctx.logger;
      /** Node names missing from the cache, with the time they were first seen missing. */
      const missingSince = new Map<string, number>();

      const markFailedAndDelete = async (pod: PodObject, condition?: PodCondition): Promise<void> => {
        const namespace = pod.metadata.namespace ?? '';
        const name = pod.metadata.name ?? '';
        try {
          if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
            // Without a kubelet nothing else would end the phase of an orphaned pod.
            const status = { phase: 'Failed', ...(condition !== undefined ? { conditions: [condition] } : {}) };
            await pods.patch(name, 'apply', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, status }, { namespace, subresource: 'status', fieldManager: FIELD_MANAGER, force: true });
          }
          await pods.delete(name, { namespace, gracePeriodSeconds: 0 });
          log.info({ pod: `${namespace}/${name}` }, 'PodGC is force deleting Pod');
        } catch (e: unknown) {
          if (!isNotFound(e)) throw e;
        }
      };

      /** Nodes missing from the cache for the whole quarantine that the API server confirms are gone. */
      const deletedNodes = async (names: Set<string>): Promise<Set<string>> => {
        const gone = new Set<string>();
        for (const name of names) {
          const since = missingSince.get(name) ?? now();
          missingSince.set(name, since);
          if (now() - since < quarantineMs) continue;
          try {
            await nodes.get(name);
            missingSince.delete(name);
          } catch (e: unknown) {
            if (!isNotFound(e)) throw e;
            gone.add(name);
          }
        }
        for (const name of [...missingSince.keys()]) if (!names.has(name)) missingSince.delete(name);
        return gone;
      };

      const gc = async (): Promise<{ requeueAfterMs: number }> => {
        const all = podInformer.indexer.list();
        const threshold = ctx.options.terminatedPodGcThreshold;
        if (threshold > 0) {
          const terminated = all.filter(isTerminated).sort(byEvictionAndCreation);
          for (const pod of terminated.slice(0, Math.max(0, terminated.length - threshold))) await markFailedAndDelete(pod);
        }
        const known = new Set(nodeInformer.indexer.list().map((n) => n.metadata.name ?? ''));
        const missing = new Set(all.map((p) => p.spec?.nodeName ?? '').filter((n) => n !== '' && !known.has(n)));
        const gone = await deletedNodes(missing);
        for (const pod of all) {
          if (!gone.has(pod.spec?.nodeName ?? '')) continue;
          await markFailedAndDelete(pod, {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'DeletionByPodGC',
            message: 'PodGC: node no longer exists',
            lastTransitionTime: formatTime(new Date(now())),
          });
        }
        for (const pod of all) {
          if (pod.metadata.deletionTimestamp !== undefined && (pod.spec?.nodeName ?? '') === '') await markFailedAndDelete(pod);
        }
        return { requeueAfterMs: checkPeriodMs };
      };

      const loop = startReconcileLoop(ctx, { name: 'podgc', workers: 1, reconcile: () => gc() });
      loop.enqueue('gc');
    },
  };
}

export const podGcController: ControllerDefinition = newPodGcController();
