/**
 * The projected API-access volume the ServiceAccount plugin gives a pod, as
 * upstream: `kube-api-access-<5 random characters>` with a bound token
 * (`token`, 3607 s: the kubelet refreshes it, and the API server warns
 * rather than refuses when a token outlives an hour), the cluster CA from the
 * `kube-root-ca.crt` ConfigMap and the pod's namespace, mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container and init
 * container that has nothing mounted there yet.
 */
import { randomInt } from 'node:crypto';
import type { Container, Pod, ProjectedVolumeSource, VolumeMount } from 'kubernetes-types/core/v1.js';

export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** upstream's WarnOnlyBoundTokenExpirationSeconds: one hour and seven seconds. */
export const TOKEN_EXPIRATION_SECONDS = 3607;
/** The ConfigMap the root-CA publisher keeps in every namespace. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** Projected volumes' default mode (0644). */
export const PROJECTED_DEFAULT_MODE = 420;

/** upstream's SimpleNameGenerator alphabet: no vowels (no words), no confusable characters. */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function tokenVolumeSource(): ProjectedVolumeSource {
  return {
    defaultMode: PROJECTED_DEFAULT_MODE,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: TOKEN_EXPIRATION_SECONDS } },
      { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/** Mount the token volume (an existing kube-api-access-* volume, or a new one) into every container that needs it. */
export function mountServiceAccountToken(pod: Pod, suffix: () => string = randomSuffix): void {
  const spec = (pod.spec ??= { containers: [] });
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing?.name ?? `${TOKEN_VOLUME_PREFIX}${suffix()}`;
  let needed = false;
  const mountInto = (containers: Container[] | undefined): void => {
    for (const container of containers ?? []) {
      if ((container.volumeMounts ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
      const mount: VolumeMount = { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH };
      (container.volumeMounts ??= []).push(mount);
      needed = true;
    }
  };
  mountInto(spec.initContainers);
  mountInto(spec.containers);
  if (existing === undefined && needed) (spec.volumes ??= []).push({ name: volumeName, projected: tokenVolumeSource() });
}
