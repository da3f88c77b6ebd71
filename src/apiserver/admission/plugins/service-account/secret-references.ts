/**
 * Which secrets a pod names, for the ServiceAccount plugin's two checks:
 * mirror pods may name none (upstream's VisitPodSecretNames over every
 * container and volume kind), and a service account annotated
 * `kubernetes.io/enforce-mountable-secrets: "true"` limits a pod to the
 * secrets it lists (upstream's limitSecretReferences, same messages).
 */
import type { Container, EphemeralContainer, Pod, ServiceAccount } from 'kubernetes-types/core/v1.js';

export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';

/** Every secret name a pod refers to: pull secrets, env and envFrom of all containers, and volumes. */
export function podSecretNames(pod: Pod): string[] {
  const spec = pod.spec;
  if (spec === undefined) return [];
  const names: string[] = [];
  const add = (name: string | undefined): void => {
    if (name !== undefined && name !== '') names.push(name);
  };
  for (const ref of spec.imagePullSecrets ?? []) add(ref.name);
  const containers: Array<Container | EphemeralContainer> = [...(spec.initContainers ?? []), ...spec.containers, ...(spec.ephemeralContainers ?? [])];
  for (const c of containers) {
    for (const from of c.envFrom ?? []) add(from.secretRef?.name);
    for (const env of c.env ?? []) add(env.valueFrom?.secretKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    add(v.azureFile?.secretName);
    add(v.cephfs?.secretRef?.name);
    add(v.cinder?.secretRef?.name);
    add(v.flexVolume?.secretRef?.name);
    for (const source of v.projected?.sources ?? []) add(source.secret?.name);
    add(v.rbd?.secretRef?.name);
    add(v.secret?.secretName);
    add(v.scaleIO?.secretRef?.name);
    add(v.iscsi?.secretRef?.name);
    add(v.storageos?.secretRef?.name);
    add(v.csi?.nodePublishSecretRef?.name);
  }
  return names;
}

/** Whether the service account limits its pods to its own secrets (strconv.ParseBool of the annotation). */
export function enforcesMountableSecrets(sa: ServiceAccount): boolean {
  const value = sa.metadata?.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION];
  return value !== undefined && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value);
}

const notReferenced = (sa: ServiceAccount): string => `is not allowed because service account ${sa.metadata?.name ?? ''} does not reference that secret`;

function containerSecretProblem(sa: ServiceAccount, mountable: Set<string>, kind: string, containers: ReadonlyArray<Container | EphemeralContainer>): string | undefined {
  for (const c of containers) {
    for (const env of c.env ?? []) {
      const name = env.valueFrom?.secretKeyRef?.name;
      if (name !== undefined && !mountable.has(name)) return `${kind} ${c.name} with envVar ${env.name} referencing secret.secretName="${name}" ${notReferenced(sa)}`;
    }
    for (const from of c.envFrom ?? []) {
      const name = from.secretRef?.name;
      if (name !== undefined && !mountable.has(name)) return `${kind} ${c.name} with envFrom referencing secret.secretName="${name}" ${notReferenced(sa)}`;
    }
  }
  return undefined;
}

const mountableOf = (sa: ServiceAccount): Set<string> => new Set((sa.secrets ?? []).map((s) => s.name ?? ''));

/** The first secret reference of the pod the service account does not list, in upstream's words; undefined when all are listed. */
export function secretReferenceProblem(sa: ServiceAccount, pod: Pod): string | undefined {
  const spec = pod.spec ?? { containers: [] };
  const mountable = mountableOf(sa);
  for (const v of spec.volumes ?? []) {
    if (v.secret === undefined) continue;
    const name = v.secret.secretName ?? '';
    if (!mountable.has(name)) return `volume with secret.secretName="${name}" ${notReferenced(sa)}`;
  }
  const problem = containerSecretProblem(sa, mountable, 'init container', spec.initContainers ?? []) ?? containerSecretProblem(sa, mountable, 'container', spec.containers);
  if (problem !== undefined) return problem;
  const pullSecrets = new Set((sa.imagePullSecrets ?? []).map((s) => s.name ?? ''));
  const pulls = spec.imagePullSecrets ?? [];
  for (let i = 0; i < pulls.length; i++) {
    const name = pulls[i]!.name ?? '';
    if (!pullSecrets.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${sa.metadata?.name ?? ''} does not reference that imagePullSecret`;
  }
  return undefined;
}

/** The same for the ephemeral containers of an `ephemeralcontainers` update. */
export function ephemeralSecretReferenceProblem(sa: ServiceAccount, pod: Pod): string | undefined {
  return containerSecretProblem(sa, mountableOf(sa), 'ephemeral container', pod.spec?.ephemeralContainers ?? []);
}
