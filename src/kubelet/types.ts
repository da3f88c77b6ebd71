/**
 * The kubelet's view of the API objects it handles: kubernetes-types' shapes
 * with the metadata every stored object has.
 */
import type {
  ConfigMap as ConfigMapType,
  Container as ContainerType,
  Node as NodeType,
  Pod as PodType,
  Secret as SecretType,
  Service as ServiceType,
} from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../machinery/meta.js';

export type Pod = KubeObject & PodType;
export type Node = KubeObject & NodeType;
export type ConfigMap = KubeObject & ConfigMapType;
export type Secret = KubeObject & SecretType;
export type Service = KubeObject & ServiceType;
export type ContainerSpec = ContainerType;

/** Annotations upstream's kubelet puts on static and mirror pods. */
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
export const CONFIG_MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';
export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';

/** A static pod (from --pod-manifest-path) rather than one from the API server. */
export const isStaticPod = (pod: Pod): boolean => {
  const source = pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== 'api';
};

/** `<namespace>/<name>`, the key kubectl and logs use for a pod. */
export const podFullName = (pod: Pod): string => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
