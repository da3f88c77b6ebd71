/**
 * A StatefulSet pod's identity (upstream's stateful_set_utils.go): the name
 * `<set>-<ordinal>`, the pod-name and pod-index labels, hostname and
 * subdomain (the governing Service), its revision label, and the volumes of
 * its claim templates, named `<template>-<set>-<ordinal>`.
 *
 * PersistentVolumeClaims themselves wait for the storage issue: the
 * controller creates none yet, but each pod already names its claims as
 * upstream does, so pods made now keep working once claims are made.
 */
import type { Volume } from 'kubernetes-types/core/v1.js';
import { deepCopy } from '../../machinery/meta.js';
import { POD_REVISION_LABEL } from '../history/controller-revision.js';
import { newControllerRef, podFromTemplate } from '../util/pod-control.js';
import type { PodObject, StatefulSetObject } from './types.js';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const STATEFUL_SET_KIND = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;

const ORDINAL_NAME = /^(.*)-(\d+)$/;

/** The parent's name and the ordinal a pod name carries (ordinal -1 when it carries none). */
export function parentAndOrdinal(pod: PodObject): { readonly parent: string; readonly ordinal: number } {
  const match = ORDINAL_NAME.exec(pod.metadata.name ?? '');
  if (match === null) return { parent: '', ordinal: -1 };
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) && ordinal <= 0x7fffffff ? { parent: match[1]!, ordinal } : { parent: '', ordinal: -1 };
}

export const ordinalOf = (pod: PodObject): number => parentAndOrdinal(pod).ordinal;

/** The pod's name says it belongs to the set. */
export function isMemberOf(set: StatefulSetObject, pod: PodObject): boolean {
  return parentAndOrdinal(pod).parent === set.metadata.name;
}

/** spec.ordinals.start (0 when absent). */
export function startOrdinal(set: StatefulSetObject): number {
  return set.spec?.ordinals?.start ?? 0;
}

export function replicaCount(set: StatefulSetObject): number {
  return set.spec?.replicas ?? 1;
}

/** [start, start + replicas) holds the ordinal. */
export function ordinalInRange(set: StatefulSetObject, ordinal: number): boolean {
  const start = startOrdinal(set);
  return ordinal >= start && ordinal < start + replicaCount(set);
}

export function podName(set: StatefulSetObject, ordinal: number): string {
  return `${set.metadata.name ?? ''}-${ordinal}`;
}

/** The claim a pod's volume of this template points at: `<template>-<set>-<ordinal>`. */
export function claimName(templateName: string, set: StatefulSetObject, ordinal: number): string {
  return `${templateName}-${podName(set, ordinal)}`;
}

/** The ControllerRevision name the pod was made from. */
export function podRevision(pod: PodObject): string {
  return pod.metadata.labels?.[POD_REVISION_LABEL] ?? '';
}

/** Name, namespace, pod-name label (upstream's identityMatches). */
export function identityMatches(set: StatefulSetObject, pod: PodObject): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    parent === set.metadata.name &&
    pod.metadata.name === podName(set, ordinal) &&
    pod.metadata.namespace === set.metadata.namespace &&
    pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name
  );
}

/** Every claim template has its volume pointing at the pod's claim (upstream's storageMatches). */
export function storageMatches(set: StatefulSetObject, pod: PodObject): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  return (set.spec?.volumeClaimTemplates ?? []).every((t) => {
    const name = t.metadata?.name ?? '';
    return volumes.get(name)?.persistentVolumeClaim?.claimName === claimName(name, set, ordinal);
  });
}

/** Mutates pod: name-derived labels, hostname and subdomain (upstream's updateIdentity). */
export function updateIdentity(set: StatefulSetObject, pod: PodObject): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  if (set.metadata.namespace !== undefined) pod.metadata.namespace = set.metadata.namespace;
  const labels = (pod.metadata.labels ??= {});
  labels[POD_NAME_LABEL] = pod.metadata.name;
  labels[POD_INDEX_LABEL] = String(ordinal);
  const spec = (pod.spec ??= { containers: [] });
  spec.hostname = pod.metadata.name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
}

/** Mutates pod: one volume per claim template, pointing at the pod's claim, replacing a template volume of that name (upstream's updateStorage). */
export function updateStorage(set: StatefulSetObject, pod: PodObject): void {
  const templates = set.spec?.volumeClaimTemplates ?? [];
  if (templates.length === 0) return;
  const ordinal = ordinalOf(pod);
  const spec = (pod.spec ??= { containers: [] });
  const claimed = new Set(templates.map((t) => t.metadata?.name ?? ''));
  const volumes: Volume[] = templates.map((t) => {
    const name = t.metadata?.name ?? '';
    return { name, persistentVolumeClaim: { claimName: claimName(name, set, ordinal) } };
  });
  for (const v of spec.volumes ?? []) if (!claimed.has(v.name)) volumes.push(v);
  spec.volumes = volumes;
}

/** The pod of the ordinal as the set's template makes it (upstream's newStatefulSetPod). */
export function newStatefulSetPod(set: StatefulSetObject, ordinal: number): PodObject {
  const template = deepCopy(set.spec?.template ?? {});
  const pod = podFromTemplate(template, set, newControllerRef(set, STATEFUL_SET_KIND)) as PodObject;
  pod.metadata.name = podName(set, ordinal);
  updateIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}

/**
 * The pod of the ordinal at the right revision (upstream's
 * newVersionedStatefulSetPod): below the partition (or, without a rolling
 * update config, below the current replica count) a RollingUpdate set makes
 * it from the current revision, otherwise from the update revision.
 */
export function newVersionedStatefulSetPod(options: {
  readonly currentSet: StatefulSetObject;
  readonly updateSet: StatefulSetObject;
  readonly currentRevision: string;
  readonly updateRevision: string;
  readonly ordinal: number;
}): PodObject {
  const { currentSet, updateSet, ordinal } = options;
  const strategy = currentSet.spec?.updateStrategy;
  const start = startOrdinal(currentSet);
  const atCurrent =
    strategy?.type === 'RollingUpdate' &&
    (strategy.rollingUpdate === undefined
      ? ordinal < start + (currentSet.status?.currentReplicas ?? 0)
      : ordinal < start + (strategy.rollingUpdate.partition ?? 0));
  const pod = newStatefulSetPod(atCurrent ? currentSet : updateSet, ordinal);
  (pod.metadata.labels ??= {})[POD_REVISION_LABEL] = atCurrent ? options.currentRevision : options.updateRevision;
  return pod;
}
