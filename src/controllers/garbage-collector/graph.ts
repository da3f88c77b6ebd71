/**
 * The ownership graph of the garbage collector (upstream's GraphBuilder and
 * uidToNode): one node per uid, linked from owners to dependents, kept in
 * step with the informers of every collected resource. An owner a dependent
 * names before (or without) the owner being seen is a "virtual" node, to be
 * verified against the API server.
 *
 * The graph only decides what needs a look: it hands nodes to its sink
 * (attemptToDelete, attemptToOrphan) and never writes to the API server.
 * Everything here is synchronous, so each informer event is applied whole.
 */
import type { ObjectMeta, OwnerReference } from '../../machinery/meta.js';
import { jsonEqual } from '../../machinery/meta.js';
import type { AbsentOwnerCache } from './absent-owner-cache.js';
import { identityKey, ownerRefMatches, sameIdentity, type ObjectIdentity } from './identity.js';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

export class GraphNode {
  readonly dependents = new Set<GraphNode>();

  constructor(
    public identity: ObjectIdentity,
    public owners: readonly OwnerReference[],
    /** Never seen on an informer: known only from a dependent's owner reference. */
    public virtual: boolean,
    public beingDeleted = false,
    /** Being deleted in the foreground: waits for its blocking dependents. */
    public deletingDependents = false,
  ) {}

  /** Dependents whose reference to this node has blockOwnerDeletion=true. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d.owners.some((r) => r.uid === this.identity.uid && r.blockOwnerDeletion === true));
  }
}

export interface GraphSink {
  attemptToDelete(node: GraphNode): void;
  attemptToOrphan(node: GraphNode): void;
  /** A dependent names an owner (by uid) that lives in another namespace: upstream's OwnerRefInvalidNamespace Event. */
  invalidNamespaceOwnerRef(dependent: GraphNode, ref: OwnerReference): void;
}

export type GraphEventType = 'add' | 'update' | 'delete';

const hasFinalizer = (meta: ObjectMeta | undefined, f: string): boolean => (meta?.finalizers ?? []).includes(f);
const beingDeleted = (meta: ObjectMeta | undefined): boolean => meta?.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;

/** The object now is being deleted with finalizer f, and was not before (or was not known). */
function startsDeletionWith(oldMeta: ObjectMeta | undefined, meta: ObjectMeta, f: string): boolean {
  if (!beingDeleted(meta) || !hasFinalizer(meta, f)) return false;
  return oldMeta === undefined || !beingDeleted(oldMeta) || !hasFinalizer(oldMeta, f);
}

/** Dependents split by whether their reference to identity.uid matches identity (both when they hold both kinds). */
export function partitionDependents(dependents: Iterable<GraphNode>, identity: ObjectIdentity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  const ownerNamespaced = identity.namespace !== '';
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (ownerNamespaced && dep.identity.namespace !== identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== identity.uid) continue;
        if (ownerRefMatches(ref, identity)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

const orderKey = (i: ObjectIdentity): string => [i.apiVersion, i.kind, i.namespace, i.name, i.uid].join('\u0000');

/**
 * Another identity the dependents give a virtual owner once one is verified
 * absent: the first one after it in a fixed order, else the first (upstream's
 * getAlternateOwnerIdentity), so that each candidate gets verified in turn.
 */
export function alternateOwnerIdentity(dependents: Iterable<GraphNode>, absent: ObjectIdentity): ObjectIdentity | undefined {
  const clusterScoped = absent.namespace === '';
  const seen = new Map<string, ObjectIdentity>([[identityKey(absent), absent]]);
  const candidates: ObjectIdentity[] = [];
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (ownerRefMatches(ref, absent) && (clusterScoped || absent.namespace === dep.identity.namespace)) continue;
      const sameKind = clusterScoped && ref.apiVersion === absent.apiVersion && ref.kind === absent.kind;
      const candidate: ObjectIdentity = {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        name: ref.name,
        uid: ref.uid,
        namespace: sameKind ? '' : dep.identity.namespace,
      };
      if (seen.has(identityKey(candidate))) continue;
      seen.set(identityKey(candidate), candidate);
      candidates.push(candidate);
    }
  }
  if (candidates.length === 0) return undefined;
  candidates.sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : orderKey(a) > orderKey(b) ? 1 : 0));
  return candidates.find((c) => orderKey(c) > orderKey(absent)) ?? candidates[0];
}

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  constructor(
    private readonly sink: GraphSink,
    private readonly absentOwners: AbsentOwnerCache,
  ) {}

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Apply one informer event: the object's identity and metadata, and for an update its previous metadata. */
  observe(type: GraphEventType, identity: ObjectIdentity, meta: ObjectMeta, oldMeta?: ObjectMeta): void {
    let node = this.nodes.get(identity.uid);
    if (node !== undefined && node.virtual) this.markObserved(node, identity);
    const owners = meta.ownerReferences ?? [];
    if (type === 'delete') {
      if (node !== undefined) this.removeAndRequeue(node, identity);
      return;
    }
    if (node === undefined) {
      node = new GraphNode(identity, owners, false, beingDeleted(meta), beingDeleted(meta) && hasFinalizer(meta, FOREGROUND_FINALIZER));
      this.nodes.set(identity.uid, node);
      this.addDependentToOwners(node, owners);
    } else {
      const { added, removed, changed } = referenceDiffs(node.owners, owners);
      if (added.length > 0 || removed.length > 0 || changed.length > 0) {
        this.requeueUnblockedOwners(removed, changed);
        node.owners = owners;
        this.addDependentToOwners(node, added);
        this.removeDependentFromOwners(node, removed);
      }
      if (beingDeleted(meta)) node.beingDeleted = true;
    }
    this.processTransitions(node, meta, oldMeta);
  }

  /**
   * The API server says `identity` does not exist (404, or another uid under
   * that name): drop the node, or, when dependents name the uid with other
   * coordinates, keep it and let those be verified too.
   */
  virtualDelete(identity: ObjectIdentity): void {
    const node = this.nodes.get(identity.uid);
    if (node === undefined) return;
    if (node.virtual) {
      const { matching, nonmatching } = partitionDependents(node.dependents, identity);
      if (nonmatching.length > 0) {
        if (matching.length > 0) {
          this.absentOwners.add(identity);
          for (const dep of matching) this.sink.attemptToDelete(dep);
        }
        if (sameIdentity(node.identity, identity)) {
          const replacement = alternateOwnerIdentity(nonmatching, identity);
          if (replacement !== undefined) {
            node.identity = replacement;
            this.sink.attemptToDelete(node);
          }
        }
        return;
      }
    } else if (!sameIdentity(node.identity, identity)) {
      // The object seen on an informer is not the one verified absent: only its dependents naming those coordinates lose their owner.
      const { matching } = partitionDependents(node.dependents, identity);
      if (matching.length > 0) {
        this.absentOwners.add(identity);
        for (const dep of matching) this.sink.attemptToDelete(dep);
      }
      return;
    }
    this.removeAndRequeue(node, identity);
  }

  private markObserved(node: GraphNode, observed: ObjectIdentity): void {
    if (!sameIdentity(observed, node.identity)) {
      // Dependents that named this uid with other coordinates may hold a wrong reference (bad child seen before good parent).
      const { nonmatching } = partitionDependents(node.dependents, observed);
      for (const dep of nonmatching) {
        if (observed.namespace !== '' && dep.identity.namespace !== observed.namespace) {
          const ref = dep.owners.find((r) => r.uid === observed.uid);
          if (ref !== undefined) this.sink.invalidNamespaceOwnerRef(dep, ref);
        }
        this.sink.attemptToDelete(dep);
      }
      node.identity = observed;
    }
    node.virtual = false;
  }

  private removeAndRequeue(node: GraphNode, identity: ObjectIdentity): void {
    this.nodes.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    if (node.dependents.size > 0) this.absentOwners.add(identity);
    for (const dep of node.dependents) this.sink.attemptToDelete(dep);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // An owner deleting in the foreground may now have no blocking dependent left.
      if (owner !== undefined && owner.deletingDependents) this.sink.attemptToDelete(owner);
    }
  }

  /** Add node to each owner's dependents, creating (and queueing for verification) virtual owners never seen. */
  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (owner === undefined) {
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: node.identity.namespace }, [], true);
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        this.sink.attemptToDelete(owner);
        continue;
      }
      owner.dependents.add(node);
      if (potentiallyInvalid) continue;
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        // A namespaced owner can only own dependents of its own namespace.
        if (!owner.virtual) this.sink.invalidNamespaceOwnerRef(node, ref);
        potentiallyInvalid = true;
      } else if (!ownerRefMatches(ref, owner.identity)) {
        potentiallyInvalid = true;
      } else if (!ownerNamespaced && owner.identity.namespace !== node.identity.namespace && owner.virtual) {
        // A virtual cluster-scoped owner may really be a namespaced kind named by a cluster-scoped dependent: verify.
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.sink.attemptToDelete(node);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.nodes.get(ref.uid)?.dependents.delete(node);
  }

  /** A blocking reference removed or made non-blocking may let a foreground owner finish. */
  private requeueUnblockedOwners(removed: readonly OwnerReference[], changed: readonly { oldRef: OwnerReference; newRef: OwnerReference }[]): void {
    for (const ref of removed) {
      const owner = ref.blockOwnerDeletion === true ? this.nodes.get(ref.uid) : undefined;
      if (owner !== undefined) this.sink.attemptToDelete(owner);
    }
    for (const { oldRef, newRef } of changed) {
      const owner = oldRef.blockOwnerDeletion === true && newRef.blockOwnerDeletion !== true ? this.nodes.get(newRef.uid) : undefined;
      if (owner !== undefined) this.sink.attemptToDelete(owner);
    }
  }

  private processTransitions(node: GraphNode, meta: ObjectMeta, oldMeta: ObjectMeta | undefined): void {
    if (startsDeletionWith(oldMeta, meta, ORPHAN_FINALIZER)) {
      this.sink.attemptToOrphan(node);
      return;
    }
    if (startsDeletionWith(oldMeta, meta, FOREGROUND_FINALIZER)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.sink.attemptToDelete(dep);
      this.sink.attemptToDelete(node);
    }
  }
}

/** Owner references added, removed and changed (same uid, other fields), by uid. */
export function referenceDiffs(
  old: readonly OwnerReference[],
  next: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: { oldRef: OwnerReference; newRef: OwnerReference }[] } {
  const oldByUid = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { oldRef: OwnerReference; newRef: OwnerReference }[] = [];
  for (const ref of next) {
    const before = oldByUid.get(ref.uid);
    if (before === undefined) added.push(ref);
    else {
      if (!jsonEqual(before, ref)) changed.push({ oldRef: before, newRef: ref });
      oldByUid.delete(ref.uid);
    }
  }
  return { added, removed: [...oldByUid.values()], changed };
}
