/**
 * The annotations a Deployment and its ReplicaSets carry (upstream's
 * deployment util): revision numbers, the revisions a reused ReplicaSet had
 * before (rollbacks), and the desired and maximum replicas a ReplicaSet was
 * last sized for (proportional scaling reads them).
 */
import type { ReplicaSetObject } from '../util/types.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
export const DEPRECATED_ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The label that tells a Deployment's ReplicaSets (and their pods) apart. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** upstream's limit on the revision-history annotation. */
export const MAX_REVISION_HISTORY_CHARS = 2000;

/** Annotations of the Deployment never copied onto its ReplicaSets. */
const NOT_COPIED = new Set([LAST_APPLIED_CONFIG_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, DEPRECATED_ROLLBACK_TO_ANNOTATION]);

/** The revision of a ReplicaSet (0 when absent or not a number). */
export function revisionOf(rs: { metadata: { annotations?: Record<string, string> | undefined } }): number {
  const text = rs.metadata.annotations?.[REVISION_ANNOTATION];
  if (text === undefined || !/^\d+$/.test(text)) return 0;
  return Number(text);
}

export function maxRevision(replicaSets: readonly ReplicaSetObject[]): number {
  return replicaSets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);
}

function intAnnotation(rs: ReplicaSetObject, key: string): number | undefined {
  const text = rs.metadata.annotations?.[key];
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

export const desiredReplicasAnnotation = (rs: ReplicaSetObject): number | undefined => intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
export const maxReplicasAnnotation = (rs: ReplicaSetObject): number | undefined => intAnnotation(rs, MAX_REPLICAS_ANNOTATION);

/** Copy the Deployment's own annotations onto the ReplicaSet (never removing any); true when one changed. */
export function copyDeploymentAnnotations(deploymentAnnotations: Record<string, string> | undefined, rs: ReplicaSetObject): boolean {
  let changed = false;
  const annotations = (rs.metadata.annotations ??= {});
  for (const [key, value] of Object.entries(deploymentAnnotations ?? {})) {
    if (NOT_COPIED.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  return changed;
}

/** Set desired-replicas and max-replicas; true when either changed. */
export function setReplicasAnnotations(rs: ReplicaSetObject, desired: number, max: number): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    changed = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSetObject, desired: number, max: number): boolean {
  const annotations = rs.metadata.annotations ?? {};
  return annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/**
 * Upstream's SetNewReplicaSetAnnotations: copy the Deployment's annotations,
 * raise the revision to `newRevision` when it is higher, remembering the
 * revision the ReplicaSet had before in revision-history (a rollback reuses
 * an old ReplicaSet), and for a ReplicaSet about to be created set the
 * replicas annotations. True when anything changed.
 */
export function setNewReplicaSetAnnotations(options: {
  readonly deploymentAnnotations: Record<string, string> | undefined;
  readonly rs: ReplicaSetObject;
  readonly newRevision: number;
  readonly exists: boolean;
  readonly desired: number;
  readonly max: number;
}): boolean {
  const { rs, newRevision } = options;
  let changed = copyDeploymentAnnotations(options.deploymentAnnotations, rs);
  const annotations = (rs.metadata.annotations ??= {});
  const oldText = annotations[REVISION_ANNOTATION];
  const hadRevision = oldText !== undefined;
  let oldRevision = 0;
  if (hadRevision) {
    if (!/^\d+$/.test(oldText)) return changed;
    oldRevision = Number(oldText);
  }
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (hadRevision) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') annotations[REVISION_HISTORY_ANNOTATION] = oldText;
      else {
        const revisions = history.split(',');
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > MAX_REVISION_HISTORY_CHARS && start < revisions.length) {
          total -= (revisions[start]?.length ?? 0) + 1;
          start++;
        }
        if (total <= MAX_REVISION_HISTORY_CHARS) annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldText].join(',');
      }
    }
  }
  if (!options.exists && setReplicasAnnotations(rs, options.desired, options.max)) changed = true;
  return changed;
}
