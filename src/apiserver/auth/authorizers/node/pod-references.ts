/**
 * The API objects a pod or a PersistentVolume names, as upstream's
 * VisitPodSecretNames, VisitPodConfigmapNames and VisitPVSecretNames walk
 * them: the Node authorizer's graph links each to the pod (so the pod's node
 * may read it), and NodeRestriction refuses mirror pods that name any.
 */
import type { Container, EphemeralContainer, PersistentVolume, Pod, SecretReference } from 'kubernetes-types/core/v1.js';

type AnyContainer = Container | EphemeralContainer;

function allContainers(pod: Pod): AnyContainer[] {
  const spec = pod.spec;
  if (spec === undefined) return [];
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

const named = (name: string | undefined, out: Set<string>): void => {
  if (name !== undefined && name !== '') out.add(name);
};

/** Secret names: image pull secrets, env and envFrom of every container (init and ephemeral too), and the volumes that take a secret. */
export function podSecretNames(pod: Pod): Set<string> {
  const out = new Set<string>();
  for (const ref of pod.spec?.imagePullSecrets ?? []) named(ref.name, out);
  for (const c of allContainers(pod)) {
    for (const from of c.envFrom ?? []) named(from.secretRef?.name, out);
    for (const env of c.env ?? []) named(env.valueFrom?.secretKeyRef?.name, out);
  }
  for (const v of pod.spec?.volumes ?? []) {
    named(v.azureFile?.secretName, out);
    named(v.cephfs?.secretRef?.name, out);
    named(v.cinder?.secretRef?.name, out);
    named(v.flexVolume?.secretRef?.name, out);
    for (const source of v.projected?.sources ?? []) named(source.secret?.name, out);
    named(v.rbd?.secretRef?.name, out);
    named(v.secret?.secretName, out);
    named(v.storageos?.secretRef?.name, out);
    named(v.scaleIO?.secretRef?.name, out);
    named(v.iscsi?.secretRef?.name, out);
    named(v.csi?.nodePublishSecretRef?.name, out);
  }
  return out;
}

/** ConfigMap names: env and envFrom of every container, configMap volumes and projected configMap sources. */
export function podConfigMapNames(pod: Pod): Set<string> {
  const out = new Set<string>();
  for (const c of allContainers(pod)) {
    for (const from of c.envFrom ?? []) named(from.configMapRef?.name, out);
    for (const env of c.env ?? []) named(env.valueFrom?.configMapKeyRef?.name, out);
  }
  for (const v of pod.spec?.volumes ?? []) {
    named(v.configMap?.name, out);
    for (const source of v.projected?.sources ?? []) named(source.configMap?.name, out);
  }
  return out;
}

/** PVC names: persistentVolumeClaim volumes, and the claim `<pod>-<volume>` of each generic ephemeral volume. */
export function podPersistentVolumeClaimNames(pod: Pod): Set<string> {
  const out = new Set<string>();
  for (const v of pod.spec?.volumes ?? []) {
    named(v.persistentVolumeClaim?.claimName, out);
    if (v.ephemeral !== undefined) out.add(`${pod.metadata?.name ?? ''}-${v.name}`);
  }
  return out;
}

/** ResourceClaim names: those the pod's spec names directly, and those its status records as made for it from a template. */
export function podResourceClaimNames(pod: Pod): Set<string> {
  const out = new Set<string>();
  // resourceClaimName since 1.31; source.resourceClaimName before.
  for (const c of pod.spec?.resourceClaims ?? []) named((c as { resourceClaimName?: string }).resourceClaimName ?? c.source?.resourceClaimName, out);
  for (const s of pod.status?.resourceClaimStatuses ?? []) named(s.resourceClaimName, out);
  return out;
}

export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

/** Secrets a PersistentVolume names (namespace and name); a reference without a namespace means the claim's, or `default` for azureFile. */
export function persistentVolumeSecretRefs(pv: PersistentVolume): NamespacedName[] {
  const out: NamespacedName[] = [];
  const claimNamespace = pv.spec?.claimRef?.namespace ?? '';
  const add = (ref: SecretReference | undefined, fallbackNamespace: string): void => {
    if (ref?.name === undefined || ref.name === '') return;
    out.push({ namespace: ref.namespace !== undefined && ref.namespace !== '' ? ref.namespace : fallbackNamespace, name: ref.name });
  };
  const spec = pv.spec ?? {};
  if (spec.azureFile !== undefined) add({ name: spec.azureFile.secretName, ...(spec.azureFile.secretNamespace !== undefined ? { namespace: spec.azureFile.secretNamespace } : {}) }, 'default');
  add(spec.cephfs?.secretRef, claimNamespace);
  add(spec.cinder?.secretRef, claimNamespace);
  add(spec.flexVolume?.secretRef as SecretReference | undefined, claimNamespace);
  add(spec.rbd?.secretRef, claimNamespace);
  add(spec.scaleIO?.secretRef, claimNamespace);
  add(spec.iscsi?.secretRef, claimNamespace);
  add(spec.storageos?.secretRef as SecretReference | undefined, claimNamespace);
  const csi = spec.csi;
  if (csi !== undefined) {
    for (const ref of [csi.controllerPublishSecretRef, csi.nodePublishSecretRef, csi.nodeStageSecretRef, csi.controllerExpandSecretRef, csi.nodeExpandSecretRef]) add(ref, claimNamespace);
  }
  return out;
}
