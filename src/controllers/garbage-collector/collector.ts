/**
 * The garbage collector's two workers (upstream's attemptToDeleteItem and
 * attemptToOrphanWorker), each a reconcile of one node by uid. The graph says
 * which nodes to look at; every decision is taken on the live object read
 * from the API server, so that a stale cache never deletes an object whose
 * owner exists: an owner counts as absent only when a GET by name returns
 * 404 or another uid.
 *
 * Writes carry the resourceVersion they were computed from (deletes as a
 * precondition, patches in the body): a concurrent change makes them fail
 * with a Conflict, and the retry starts from the new state.
 */
import type { Client, ResourceRef } from '../../client/rest/interface.js';
import { jsonEqual, type KubeObject, type OwnerReference } from '../../machinery/meta.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { ReconcileResult } from '../reconcile-loop.js';
import type { AbsentOwnerCache } from './absent-owner-cache.js';
import { identityOfOwnerRef, type ObjectIdentity } from './identity.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type DependencyGraph, type GraphNode } from './graph.js';
import type { ResourceMapper } from './discovery.js';

/** A virtual node that exists on the server is looked at again until an informer shows it (upstream requeues it rate-limited). */
const UNOBSERVED_REQUEUE_MS = 1_000;

/** An owner reference this collector cannot map to a served resource: retried, as upstream's restMappingError is. */
export class UnknownOwnerKindError extends Error {
  override readonly name = 'UnknownOwnerKindError';
}

/** Thrown internally when a cluster-scoped dependent names a namespaced owner: nothing to retry. */
class NamespacedOwnerOfClusterScopedObject extends Error {}

type Policy = 'Orphan' | 'Background' | 'Foreground';

interface Classified {
  readonly solid: OwnerReference[];
  readonly dangling: OwnerReference[];
  readonly waiting: OwnerReference[];
}

export interface GarbageCollectorDeps {
  readonly client: Client;
  readonly graph: DependencyGraph;
  readonly mapper: ResourceMapper;
  readonly absentOwners: AbsentOwnerCache;
  /** Queue a node for attemptToDelete. */
  readonly enqueueDelete: (uid: string) => void;
  readonly log?: (message: string, fields: Record<string, unknown>) => void;
}

export class GarbageCollector {
  constructor(private readonly deps: GarbageCollectorDeps) {}

  /** attemptToDelete: delete the object when every owner is absent, or patch away the absent ones when some owner remains. */
  async attemptToDelete(uid: string): Promise<ReconcileResult | void> {
    const node = this.deps.graph.get(uid);
    if (node === undefined) return;
    // Being deleted is a one-way trip: its dependents are looked at once it is gone.
    if (node.beingDeleted && !node.deletingDependents) return;
    const identity = node.identity;
    const latest = await this.getObject(identity);
    if (latest === undefined || latest.metadata.uid !== identity.uid) {
      this.deps.graph.virtualDelete(identity);
      return;
    }
    if (node.deletingDependents) {
      await this.processDeletingDependents(node);
      return;
    }
    const result = await this.collectIfOrphaned(node, latest);
    if (result === 'forget') return;
    if (this.deps.graph.get(uid)?.virtual === true) return { requeueAfterMs: UNOBSERVED_REQUEUE_MS };
  }

  /** attemptToOrphan: remove the owner from every dependent's ownerReferences, then the orphan finalizer from the owner. */
  async attemptToOrphan(uid: string): Promise<void> {
    const owner = this.deps.graph.get(uid);
    if (owner === undefined) return;
    const failures: string[] = [];
    await Promise.all(
      [...owner.dependents].map(async (dep) => {
        try {
          await this.removeOwnerReferences(dep.identity, [owner.identity.uid]);
        } catch (e: unknown) {
          failures.push(`orphaning ${dep.identity.kind} ${dep.identity.namespace}/${dep.identity.name} failed, ${String(e)}`);
        }
      }),
    );
    if (failures.length > 0) throw new Error(`failed to orphan dependents of owner ${owner.identity.name}, got errors: ${failures.sort().join(', ')}`);
    await this.removeFinalizer(owner.identity, ORPHAN_FINALIZER);
  }

  private async collectIfOrphaned(node: GraphNode, latest: KubeObject): Promise<'forget' | void> {
    const refs = latest.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    let classified: Classified;
    try {
      classified = await this.classify(node, refs);
    } catch (e: unknown) {
      // Retrying cannot mend a cluster-scoped object owned by a namespaced kind: leave it alone.
      if (e instanceof NamespacedOwnerOfClusterScopedObject) return 'forget';
      throw e;
    }
    const { solid, dangling, waiting } = classified;
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // A foreground owner must not wait on a dependent another owner keeps: drop the reference to it, and to absent owners.
      await this.removeOwnerReferences(node.identity, [...dangling, ...waiting].map((r) => r.uid), latest);
      return;
    }
    if (waiting.length > 0 && node.dependents.size > 0) {
      let current: KubeObject | undefined = latest;
      if ([...node.dependents].some((d) => d.deletingDependents)) {
        // A dependent that is itself deleting in the foreground could wait on this object forever: unblock first.
        current = await this.unblockOwnerReferences(node.identity, latest);
      }
      if (current !== undefined) await this.deleteObject(node.identity, 'Foreground', current);
      return;
    }
    const finalizers = latest.metadata.finalizers ?? [];
    const policy: Policy = finalizers.includes(ORPHAN_FINALIZER) ? 'Orphan' : finalizers.includes(FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
    await this.deleteObject(node.identity, policy, latest);
  }

  /** An owner deleting in the foreground: done when no dependent blocks it any more. */
  private async processDeletingDependents(node: GraphNode): Promise<void> {
    const blocking = node.blockingDependents();
    if (blocking.length === 0) {
      await this.removeFinalizer(node.identity, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.deps.enqueueDelete(dep.identity.uid);
  }

  private async classify(node: GraphNode, refs: readonly OwnerReference[]): Promise<Classified> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = await this.liveOwner(ref, node.identity);
      if (owner === undefined) dangling.push(ref);
      else if (owner.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER)) waiting.push(ref);
      else solid.push(ref);
    }
    return { solid, dangling, waiting };
  }

  /** The owner as the API server has it, or undefined when it is absent (remembered in the absent-owner cache). */
  private async liveOwner(ref: OwnerReference, dependent: ObjectIdentity): Promise<KubeObject | undefined> {
    const clusterKey = identityOfOwnerRef(ref, '');
    const namespacedKey = identityOfOwnerRef(ref, dependent.namespace);
    if (this.deps.absentOwners.has(clusterKey) || this.deps.absentOwners.has(namespacedKey)) return undefined;
    const resource = this.resourceOf(ref.apiVersion, ref.kind);
    if (resource.namespaced && dependent.namespace === '') throw new NamespacedOwnerOfClusterScopedObject();
    const key = resource.namespaced ? namespacedKey : clusterKey;
    const owner = await this.get(resource, ref.name, dependent.namespace);
    if (owner === undefined || owner.metadata.uid !== ref.uid) {
      this.deps.absentOwners.add(key);
      return undefined;
    }
    return owner;
  }

  private resourceOf(apiVersion: string, kind: string): ResourceRef {
    const resource = this.deps.mapper(apiVersion, kind);
    if (resource === undefined) throw new UnknownOwnerKindError(`unable to get REST mapping for ${apiVersion}/${kind}`);
    return resource;
  }

  private async getObject(identity: ObjectIdentity): Promise<KubeObject | undefined> {
    const resource = this.resourceOf(identity.apiVersion, identity.kind);
    // A namespaced kind named by a cluster-scoped dependent has no coordinates to look up.
    if (resource.namespaced && identity.namespace === '') return undefined;
    return this.get(resource, identity.name, identity.namespace);
  }

  private async get(resource: ResourceRef, name: string, namespace: string): Promise<KubeObject | undefined> {
    try {
      return await this.deps.client.resource(resource).get(name, resource.namespaced ? { namespace } : {});
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /**
   * Delete at the resourceVersion the decision was taken on. When that
   * version is stale but the owner references are as they were (a status
   * update came in between), the decision still holds: delete once more at
   * the live version, as upstream's deleteObject does.
   */
  private async deleteObject(identity: ObjectIdentity, policy: Policy, latest: KubeObject): Promise<void> {
    const resource = this.resourceOf(identity.apiVersion, identity.kind);
    const client = this.deps.client.resource(resource);
    const namespace = resource.namespaced ? { namespace: identity.namespace } : {};
    const attempt = async (resourceVersion: string | undefined): Promise<void> => {
      await client.delete(identity.name, {
        ...namespace,
        propagationPolicy: policy,
        preconditions: { uid: identity.uid, ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
      });
    };
    this.deps.log?.('deleting object', { kind: identity.kind, namespace: identity.namespace, name: identity.name, propagationPolicy: policy });
    const resourceVersion = latest.metadata.resourceVersion;
    try {
      try {
        await attempt(resourceVersion);
      } catch (e: unknown) {
        if (!isConflict(e) || resourceVersion === undefined) throw e;
        const live = await this.get(resource, identity.name, identity.namespace);
        if (live === undefined) return;
        const unchanged =
          live.metadata.uid === identity.uid &&
          live.metadata.resourceVersion !== resourceVersion &&
          jsonEqual(live.metadata.ownerReferences ?? [], latest.metadata.ownerReferences ?? []);
        if (!unchanged) throw e;
        await attempt(live.metadata.resourceVersion);
      }
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw e;
    }
  }

  /**
   * Remove the references to these owner uids from the object, with a merge
   * patch that carries the resourceVersion it was computed from. Nothing to do
   * when the object is gone, is another object now, or holds none of them.
   */
  private async removeOwnerReferences(identity: ObjectIdentity, ownerUids: readonly string[], known?: KubeObject): Promise<void> {
    const resource = this.resourceOf(identity.apiVersion, identity.kind);
    const latest = known ?? (await this.getObject(identity));
    if (latest === undefined || latest.metadata.uid !== identity.uid) return;
    const refs = latest.metadata.ownerReferences ?? [];
    const remaining = refs.filter((r) => !ownerUids.includes(r.uid));
    if (remaining.length === refs.length) return;
    await this.patchMetadata(resource, identity, latest, { ownerReferences: remaining.length > 0 ? remaining : null });
  }

  /** Set blockOwnerDeletion=false on every reference that blocks (upstream's unblockOwnerReferences); the object as it is now (undefined: gone). */
  private async unblockOwnerReferences(identity: ObjectIdentity, latest: KubeObject): Promise<KubeObject | undefined> {
    const refs = latest.metadata.ownerReferences ?? [];
    if (!refs.some((r) => r.blockOwnerDeletion === true)) return latest;
    const unblocked = refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
    return this.patchMetadata(this.resourceOf(identity.apiVersion, identity.kind), identity, latest, { ownerReferences: unblocked });
  }

  private async removeFinalizer(identity: ObjectIdentity, finalizer: string): Promise<void> {
    const resource = this.resourceOf(identity.apiVersion, identity.kind);
    const latest = await this.getObject(identity);
    if (latest === undefined || latest.metadata.uid !== identity.uid) return;
    const finalizers = latest.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    const rest = finalizers.filter((f) => f !== finalizer);
    await this.patchMetadata(resource, identity, latest, { finalizers: rest.length > 0 ? rest : null });
  }

  /** A merge patch of metadata, conditional on the resourceVersion it was computed from; the patched object (undefined: gone). */
  private async patchMetadata(resource: ResourceRef, identity: ObjectIdentity, latest: KubeObject, metadata: Record<string, unknown>): Promise<KubeObject | undefined> {
    const body = { metadata: { uid: identity.uid, resourceVersion: latest.metadata.resourceVersion, ...metadata } };
    try {
      return await this.deps.client.resource(resource).patch(identity.name, 'merge', body, resource.namespaced ? { namespace: identity.namespace } : {});
    } catch (e: unknown) {
      // Gone meanwhile: nothing left to change. Anything else (a Conflict) is retried from the new state.
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
}
