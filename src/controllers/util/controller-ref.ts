/**
 * Which objects a controller owns (upstream's ControllerRefManager): an
 * object whose controller ownerReference names the owner is the owner's while
 * its labels match the selector, and is released (the reference removed)
 * once they stop matching; an orphan whose labels match is adopted (the
 * reference added) unless the owner is being deleted. Objects controlled by
 * someone else are never touched. Adoption first re-reads the owner from the
 * API server (once per claim), so that a stale cache never adopts into an
 * owner that was just deleted or replaced.
 */
import type { LabelSelector } from '../../machinery/selectors/label-selector.js';
import { isInvalid, isNotFound } from '../../machinery/status.js';
import type { KubeObject, OwnerReference } from '../../machinery/meta.js';
import type { ResourceClient } from '../../client/rest/interface.js';
import { controllerRefOf } from './pod-control.js';

export interface ClaimOptions<T extends KubeObject> {
  /** The controller object (from the cache). */
  readonly owner: KubeObject;
  /** The controller ownerReference to adopt with (newControllerRef of the owner). */
  readonly controllerRef: OwnerReference;
  readonly selector: LabelSelector;
  /** The client of the owned kind, for the adopt and release patches. */
  readonly client: ResourceClient<T>;
  /**
   * Called once before the first adoption: rejects when the owner is gone or
   * being deleted (see recheckOwner). Default: adopt without re-checking.
   */
  readonly canAdopt?: () => Promise<void>;
  /** Extra condition an object must meet to be adopted (e.g. the pod is active). */
  readonly adoptable?: (object: T) => boolean;
}

/**
 * Returns the candidates the owner owns after adopting and releasing. A
 * failed adoption or release rejects (after trying every object) with the
 * first error; an object that disappeared meanwhile is skipped silently.
 */
export async function claimObjects<T extends KubeObject>(candidates: readonly T[], options: ClaimOptions<T>): Promise<T[]> {
  const { owner, controllerRef, selector, client } = options;
  const ownerUid = owner.metadata.uid ?? '';
  const ownerDeleting = !!owner.metadata.deletionTimestamp;
  const claimed: T[] = [];
  const errors: unknown[] = [];
  let adoptCheck: Promise<void> | undefined;

  for (const object of candidates) {
    const ref = controllerRefOf(object);
    const matches = selector.matches(object.metadata.labels);
    if (ref !== undefined) {
      if (ref.uid !== ownerUid) continue;
      if (matches) {
        claimed.push(object);
        continue;
      }
      if (ownerDeleting) continue;
      try {
        await releaseObject(client, object, ownerUid);
      } catch (e: unknown) {
        errors.push(e);
      }
      continue;
    }
    if (ownerDeleting || !matches || object.metadata.deletionTimestamp) continue;
    if (options.adoptable !== undefined && !options.adoptable(object)) continue;
    try {
      adoptCheck ??= (options.canAdopt ?? (async () => {}))();
      await adoptCheck;
      claimed.push(await adoptObject(client, object, controllerRef));
    } catch (e: unknown) {
      if (!isNotFound(e)) errors.push(e);
    }
  }
  if (errors.length > 0) throw errors[0];
  return claimed;
}

/** Add the controller reference (strategic merge on ownerReferences by uid, with the object's uid as precondition). */
export async function adoptObject<T extends KubeObject>(client: ResourceClient<T>, object: T, controllerRef: OwnerReference): Promise<T> {
  const patch = { metadata: { ownerReferences: [controllerRef], uid: object.metadata.uid } };
  return client.patch(object.metadata.name ?? '', 'strategic', patch, { namespace: object.metadata.namespace ?? '' });
}

/** Remove the owner's reference; an object already gone or replaced (NotFound, Invalid uid precondition) needs nothing. */
export async function releaseObject<T extends KubeObject>(client: ResourceClient<T>, object: T, ownerUid: string): Promise<void> {
  const patch = { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid: object.metadata.uid } };
  try {
    await client.patch(object.metadata.name ?? '', 'strategic', patch, { namespace: object.metadata.namespace ?? '' });
  } catch (e: unknown) {
    if (isNotFound(e) || isInvalid(e)) return;
    throw e;
  }
}

/**
 * Upstream's RecheckDeletionTimestamp: a fresh read of the owner must find
 * the same uid and no deletionTimestamp before anything is adopted.
 */
export function recheckOwner(read: () => Promise<KubeObject>, owner: KubeObject): () => Promise<void> {
  return async () => {
    const fresh = await read();
    const { namespace, name, uid } = owner.metadata;
    if (fresh.metadata.uid !== uid) {
      throw new Error(`original ${namespace ?? ''}/${name ?? ''} is gone: got uid ${fresh.metadata.uid ?? ''}, wanted ${uid ?? ''}`);
    }
    if (fresh.metadata.deletionTimestamp) {
      throw new Error(`${namespace ?? ''}/${name ?? ''} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  };
}
