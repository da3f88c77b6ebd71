/**
 * A Deployment's ReplicaSets as upstream's deployment util sees them: which
 * one is new (its template equals the Deployment's, ignoring the hash
 * label), which are old, how they sort, and how many replicas the new one
 * may have next.
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { jsonEqual } from '../../machinery/meta.js';
import type { DeploymentObject, ReplicaSetObject } from '../util/types.js';
import { desiredReplicasAnnotation, maxReplicasAnnotation, POD_TEMPLATE_HASH_LABEL, revisionOf } from './annotations.js';
import { desiredReplicas, maxSurge } from './intstr.js';

export const specReplicas = (rs: ReplicaSetObject): number => rs.spec?.replicas ?? 1;
export const statusReplicas = (rs: ReplicaSetObject): number => rs.status?.replicas ?? 0;
export const availableReplicas = (rs: ReplicaSetObject): number => rs.status?.availableReplicas ?? 0;
export const readyReplicas = (rs: ReplicaSetObject): number => rs.status?.readyReplicas ?? 0;

/** Empty maps, empty arrays and nulls dropped, so that a template read back from the server compares equal to the one written. */
function pruneEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneEmpty);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const pruned = pruneEmpty(v);
      if (pruned === undefined || pruned === null) continue;
      if (typeof pruned === 'object' && !Array.isArray(pruned) && Object.keys(pruned).length === 0) continue;
      if (Array.isArray(pruned) && pruned.length === 0) continue;
      out[k] = pruned;
    }
    return out;
  }
  return value;
}

function withoutHashLabel(template: PodTemplateSpec | undefined): unknown {
  const labels = { ...(template?.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH_LABEL];
  return pruneEmpty({ ...template, metadata: { ...template?.metadata, labels } });
}

/** upstream's EqualIgnoreHash: the templates are equal once the pod-template-hash label is removed from both. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return jsonEqual(withoutHashLabel(a), withoutHashLabel(b));
}

const created = (rs: ReplicaSetObject): number => {
  const ms = Date.parse(rs.metadata.creationTimestamp ?? '');
  return Number.isNaN(ms) ? 0 : ms;
};

/** Oldest first; the same second: by name. */
export function byCreation(a: ReplicaSetObject, b: ReplicaSetObject): number {
  const diff = created(a) - created(b);
  if (diff !== 0) return diff;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Lowest revision first; equal revisions by creation. */
export function byRevision(a: ReplicaSetObject, b: ReplicaSetObject): number {
  return revisionOf(a) - revisionOf(b) || byCreation(a, b);
}

/** Largest first; equal sizes: newer first (scaling up). */
export function bySizeNewer(a: ReplicaSetObject, b: ReplicaSetObject): number {
  return specReplicas(b) - specReplicas(a) || byCreation(b, a);
}

/** Largest first; equal sizes: older first (scaling down). */
export function bySizeOlder(a: ReplicaSetObject, b: ReplicaSetObject): number {
  return specReplicas(b) - specReplicas(a) || byCreation(a, b);
}

/** The oldest ReplicaSet whose template is the Deployment's (upstream's FindNewReplicaSet). */
export function findNewReplicaSet(d: DeploymentObject, replicaSets: readonly ReplicaSetObject[]): ReplicaSetObject | undefined {
  return [...replicaSets].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** Every ReplicaSet but the new one. */
export function findOldReplicaSets(d: DeploymentObject, replicaSets: readonly ReplicaSetObject[]): ReplicaSetObject[] {
  const newRS = findNewReplicaSet(d, replicaSets);
  return replicaSets.filter((rs) => newRS === undefined || rs.metadata.uid !== newRS.metadata.uid);
}

/** ReplicaSets with replicas > 0. */
export function activeReplicaSets(replicaSets: readonly (ReplicaSetObject | undefined)[]): ReplicaSetObject[] {
  return replicaSets.filter((rs): rs is ReplicaSetObject => rs !== undefined && specReplicas(rs) > 0);
}

export const sumSpecReplicas = (rss: readonly (ReplicaSetObject | undefined)[]): number => rss.reduce((n, rs) => n + (rs === undefined ? 0 : specReplicas(rs)), 0);
export const sumStatusReplicas = (rss: readonly (ReplicaSetObject | undefined)[]): number => rss.reduce((n, rs) => n + (rs === undefined ? 0 : statusReplicas(rs)), 0);
export const sumReadyReplicas = (rss: readonly (ReplicaSetObject | undefined)[]): number => rss.reduce((n, rs) => n + (rs === undefined ? 0 : readyReplicas(rs)), 0);
export const sumAvailableReplicas = (rss: readonly (ReplicaSetObject | undefined)[]): number => rss.reduce((n, rs) => n + (rs === undefined ? 0 : availableReplicas(rs)), 0);

/**
 * How many replicas the new ReplicaSet may have now (upstream's
 * NewRSNewReplicas): for a rolling update, up to the desired count without
 * the total exceeding desired + maxSurge; for Recreate, the desired count.
 */
export function newReplicaSetReplicas(d: DeploymentObject, allRSs: readonly ReplicaSetObject[], newRS: ReplicaSetObject): number {
  const desired = desiredReplicas(d);
  if (d.spec?.strategy?.type === 'Recreate') return desired;
  const maxTotal = desired + maxSurge(d);
  const current = sumSpecReplicas(allRSs);
  if (current >= maxTotal) return specReplicas(newRS);
  const scaleUp = Math.min(maxTotal - current, desired - specReplicas(newRS));
  return specReplicas(newRS) + scaleUp;
}

/** The only active ReplicaSet, or when none is active the newest one (upstream's FindActiveOrLatest); undefined when several are active. */
export function findActiveOrLatest(newRS: ReplicaSetObject | undefined, oldRSs: readonly ReplicaSetObject[]): ReplicaSetObject | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/** The new ReplicaSet runs all desired replicas, was sized for them, and all are available (upstream's IsSaturated). */
export function isSaturated(d: DeploymentObject, rs: ReplicaSetObject | undefined): boolean {
  if (rs === undefined) return false;
  const desired = desiredReplicasAnnotation(rs);
  if (desired === undefined) return false;
  const replicas = desiredReplicas(d);
  return specReplicas(rs) === replicas && desired === replicas && availableReplicas(rs) === replicas;
}

/** Go's math.Round: halves away from zero. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/**
 * This ReplicaSet's share of a proportional scale (upstream's
 * getReplicaSetFraction): its size scaled from the Deployment's max replicas
 * it was last sized for to the new max replicas, minus its size.
 */
export function replicaSetFraction(rs: ReplicaSetObject, d: DeploymentObject): number {
  const replicas = desiredReplicas(d);
  if (replicas === 0) return -specReplicas(rs);
  const maxNow = replicas + maxSurge(d);
  let maxBefore = maxReplicasAnnotation(rs);
  if (maxBefore === undefined || maxBefore === 0) maxBefore = d.status?.replicas ?? 0;
  if (maxBefore === 0) return 0;
  return roundHalfAway((specReplicas(rs) * maxNow) / maxBefore) - specReplicas(rs);
}

/** upstream's GetReplicaSetProportion: the fraction, bounded by what is left to add (or remove). */
export function replicaSetProportion(rs: ReplicaSetObject, d: DeploymentObject, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * The sizes of a proportional scale of active ReplicaSets (upstream's
 * scale() for rolling updates): each ReplicaSet gets its proportion of the
 * replicas to add or remove; leftovers go to the first (largest) one.
 * Returns the ReplicaSets in the order to update them, with their new sizes.
 */
export function proportionalSizes(d: DeploymentObject, active: readonly ReplicaSetObject[]): { rs: ReplicaSetObject; size: number; direction: 'up' | 'down' | '' }[] {
  const replicas = desiredReplicas(d);
  const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
  const toAdd = allowed - sumSpecReplicas(active);
  const ordered = [...active];
  let direction: 'up' | 'down' | '' = '';
  if (toAdd > 0) {
    ordered.sort(bySizeNewer);
    direction = 'up';
  } else if (toAdd < 0) {
    ordered.sort(bySizeOlder);
    direction = 'down';
  }
  let added = 0;
  const sizes = ordered.map((rs) => {
    if (toAdd === 0) return specReplicas(rs);
    const proportion = replicaSetProportion(rs, d, toAdd, added);
    added += proportion;
    return specReplicas(rs) + proportion;
  });
  if (toAdd !== 0 && sizes.length > 0) sizes[0] = Math.max(0, (sizes[0] ?? 0) + toAdd - added);
  return ordered.map((rs, i) => ({ rs, size: sizes[i] ?? 0, direction }));
}
