/**
 * Writing ControllerRevisions through the API server (upstream's
 * realHistory): create with name-collision handling, renumber, and list the
 * ones an owner controls from an informer's indexer.
 */
import { isAlreadyExists } from '../../machinery/status.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import { NAMESPACE_INDEX } from '../../client/cache/interfaces.js';
import type { ResourceClient } from '../../client/rest/interface.js';
import type { LabelSelector } from '../../machinery/selectors/label-selector.js';
import { deepCopy, type KubeObject } from '../../machinery/meta.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  controllerRevisionName,
  hashControllerRevision,
  revisionDataBytes,
  type ControllerRevisionObject,
} from './controller-revision.js';

export interface CreatedRevision {
  readonly revision: ControllerRevisionObject;
  /** The collision count after the names that were taken by other data. */
  readonly collisionCount: number;
}

/**
 * Create the revision under `<owner>-<hash(data, collisionCount)>`. When the
 * name is taken by a revision with the same data, that one is the answer
 * (an earlier attempt of ours); when it is taken by other data, the collision
 * count goes up and the name changes.
 */
export async function createControllerRevision(options: {
  readonly client: ResourceClient<ControllerRevisionObject>;
  readonly owner: KubeObject;
  readonly revision: ControllerRevisionObject;
  readonly collisionCount: number;
  /** Give up after this many collisions (default 100): a bug, not bad luck. */
  readonly maxCollisions?: number;
}): Promise<CreatedRevision> {
  const namespace = options.owner.metadata.namespace ?? '';
  const wanted = revisionDataBytes(options.revision);
  let collisionCount = options.collisionCount;
  for (let attempt = 0; attempt <= (options.maxCollisions ?? 100); attempt++) {
    const clone = deepCopy(options.revision);
    const hash = hashControllerRevision(options.revision, collisionCount);
    clone.metadata.name = controllerRevisionName(options.owner.metadata.name ?? '', hash);
    (clone.metadata.labels ??= {})[CONTROLLER_REVISION_HASH_LABEL] = hash;
    try {
      return { revision: await options.client.create(clone, { namespace }), collisionCount };
    } catch (e: unknown) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await options.client.get(clone.metadata.name, { namespace });
      if (revisionDataBytes(existing) === wanted) return { revision: existing, collisionCount };
      collisionCount++;
    }
  }
  throw new Error(`too many name collisions creating a revision of ${namespace}/${options.owner.metadata.name ?? ''}`);
}

/** Give an existing revision a new number (a rollback to it makes it the newest). */
export async function renumberControllerRevision(
  client: ResourceClient<ControllerRevisionObject>,
  revision: ControllerRevisionObject,
  newRevision: number,
): Promise<ControllerRevisionObject> {
  if (revision.revision === newRevision) return revision;
  const copy = deepCopy(revision);
  copy.revision = newRevision;
  return client.update(copy, { namespace: revision.metadata.namespace ?? '' });
}

/**
 * The revisions of the owner's namespace that match the selector and that the
 * owner controls or nobody does (upstream's ListControllerRevisions); shared
 * cache objects: copy before changing.
 */
export function listOwnedOrOrphanRevisions(
  indexer: Indexer<ControllerRevisionObject>,
  owner: KubeObject,
  selector: LabelSelector,
): ControllerRevisionObject[] {
  const uid = owner.metadata.uid;
  return indexer.byIndex(NAMESPACE_INDEX, owner.metadata.namespace ?? '').filter((r) => {
    if (!selector.matches(r.metadata.labels ?? {})) return false;
    const ref = r.metadata.ownerReferences?.find((o) => o.controller === true);
    return ref === undefined || ref.uid === uid;
  });
}
