/**
 * The garbage collector (upstream's `garbage-collector` controller): one
 * informer per collected resource feeds the ownership graph; two reconcile
 * loops keyed by uid act on it — attemptToDelete (background and foreground
 * propagation, dangling references) and attemptToOrphan (orphan propagation).
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { GarbageCollector } from './collector.js';
import { apiVersionOf, garbageCollectedResources, newResourceMapper } from './discovery.js';
import { DependencyGraph, type GraphEventType } from './graph.js';
import { formatIdentity, type ObjectIdentity } from './identity.js';

export const GARBAGE_COLLECTOR_NAME = 'garbage-collector';
/** The component its Events name (upstream's garbage collector recorder). */
export const GARBAGE_COLLECTOR_COMPONENT = 'garbage-collector-controller';

export interface GarbageCollectorHandle {
  readonly graph: DependencyGraph;
  readonly collector: GarbageCollector;
}

export function startGarbageCollector(ctx: ControllerContext): GarbageCollectorHandle {
  const recorder = ctx.events.recorderFor(GARBAGE_COLLECTOR_COMPONENT);
  const log = ctx.logger.child({ controller: GARBAGE_COLLECTOR_NAME });
  const workers = ctx.options.concurrentSyncs(GARBAGE_COLLECTOR_NAME);
  const absentOwners = new AbsentOwnerCache();
  // The loops need the graph's sink and the graph needs the loops' queues: bind through these.
  let enqueueDelete: (uid: string) => void = () => {};
  let enqueueOrphan: (uid: string) => void = () => {};

  const graph = new DependencyGraph(
    {
      attemptToDelete: (node) => enqueueDelete(node.identity.uid),
      attemptToOrphan: (node) => enqueueOrphan(node.identity.uid),
      invalidNamespaceOwnerRef: (dependent, ref) => {
        const { apiVersion, kind, name, uid, namespace } = dependent.identity;
        const invalid: ObjectIdentity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
        const involved: KubeObject = { apiVersion, kind, metadata: { name, uid, ...(namespace !== '' ? { namespace } : {}) } };
        recorder.event(involved, 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${formatIdentity(invalid)} does not exist in namespace "${namespace}"`);
      },
    },
    absentOwners,
  );
  const collector = new GarbageCollector({
    client: ctx.client,
    graph,
    mapper: newResourceMapper(),
    absentOwners,
    enqueueDelete: (uid) => enqueueDelete(uid),
    log: (message, fields) => log.debug(fields, message),
  });

  const deleteLoop = startReconcileLoop(ctx, { name: GARBAGE_COLLECTOR_NAME, workers, reconcile: (uid) => collector.attemptToDelete(uid) });
  const orphanLoop = startReconcileLoop(ctx, { name: `${GARBAGE_COLLECTOR_NAME}-orphan`, workers, reconcile: (uid) => collector.attemptToOrphan(uid) });
  enqueueDelete = deleteLoop.enqueue;
  enqueueOrphan = orphanLoop.enqueue;

  for (const ref of garbageCollectedResources()) {
    const apiVersion = apiVersionOf(ref);
    const identity = (o: KubeObject): ObjectIdentity => ({
      apiVersion,
      kind: ref.kind,
      name: o.metadata.name ?? '',
      uid: o.metadata.uid ?? '',
      namespace: o.metadata.namespace ?? '',
    });
    const observe = (type: GraphEventType, o: KubeObject, old?: KubeObject): void => {
      if (o.metadata.uid === undefined || o.metadata.uid === '') return;
      graph.observe(type, identity(o), o.metadata, old?.metadata);
    };
    ctx.informers.informerFor(ref).addEventHandler({
      onAdd: (o) => observe('add', o),
      onUpdate: (old, o) => {
        // A relist can fold a delete and a re-create under one name into one update: two objects, two events.
        if (old.metadata.uid !== o.metadata.uid) {
          observe('delete', old);
          observe('add', o);
        } else observe('update', o, old);
      },
      onDelete: (o) => observe('delete', o),
    });
  }
  return { graph, collector };
}

export const garbageCollectorController: ControllerDefinition = {
  name: GARBAGE_COLLECTOR_NAME,
  enabledByDefault: true,
  start: (ctx) => {
    startGarbageCollector(ctx);
  },
};
