/**
 * A StatefulSet's revisions (upstream's getStatefulSetRevisions): the update
 * revision is the one holding the current template; an equal older revision
 * is renumbered to the newest (a rollback), otherwise a new one is created.
 * The current revision is the one status.currentRevision names (the update
 * revision for a new set).
 */
import {
  applyRevision,
  equalRevision,
  findEqualRevisions,
  newControllerRevision,
  nextRevision,
  templatePatch,
  type ControllerRevisionObject,
} from '../history/controller-revision.js';
import { newControllerRef } from '../util/pod-control.js';
import { STATEFUL_SET_KIND } from './identity.js';
import type { StatefulSetObject } from './types.js';

/** The revision holding the set's template (upstream's newRevision): the template's labels, the set's annotations. */
export function statefulSetRevision(set: StatefulSetObject, revision: number, collisionCount: number): ControllerRevisionObject {
  return newControllerRevision({
    owner: set,
    controllerRef: newControllerRef(set, STATEFUL_SET_KIND),
    templateLabels: set.spec?.template.metadata?.labels,
    data: templatePatch(set),
    revision,
    collisionCount,
    annotations: set.metadata.annotations,
  });
}

export type UpdateRevisionDecision =
  /** The newest revision already holds the template. */
  | { readonly kind: 'existing'; readonly revision: ControllerRevisionObject }
  /** An older revision holds it: make it the newest (rollback). */
  | { readonly kind: 'renumber'; readonly revision: ControllerRevisionObject; readonly to: number }
  /** None does: create this one. */
  | { readonly kind: 'create'; readonly revision: ControllerRevisionObject };

/** revisions: sorted (sortControllerRevisions). */
export function decideUpdateRevision(set: StatefulSetObject, revisions: readonly ControllerRevisionObject[], collisionCount: number): UpdateRevisionDecision {
  const candidate = statefulSetRevision(set, nextRevision(revisions), collisionCount);
  const equal = findEqualRevisions(revisions, candidate);
  const last = revisions[revisions.length - 1];
  const newestEqual = equal[equal.length - 1];
  if (newestEqual !== undefined && last !== undefined && equalRevision(last, newestEqual)) return { kind: 'existing', revision: last };
  if (newestEqual !== undefined) return { kind: 'renumber', revision: newestEqual, to: candidate.revision };
  return { kind: 'create', revision: candidate };
}

/** The revision status.currentRevision names, or the update revision when none does. */
export function currentRevisionOf(set: StatefulSetObject, revisions: readonly ControllerRevisionObject[], updateRevision: ControllerRevisionObject): ControllerRevisionObject {
  const name = set.status?.currentRevision;
  return revisions.find((r) => r.metadata.name === name) ?? updateRevision;
}

/** The set as a revision makes it (its template from the revision). */
export function setAtRevision(set: StatefulSetObject, revision: ControllerRevisionObject): StatefulSetObject {
  return applyRevision(set, revision);
}
