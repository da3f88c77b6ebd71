/**
 * A container's environment as upstream's kubelet makes it: the service link
 * variables (enableServiceLinks, default true) first, then envFrom in order,
 * then env in order with $(VAR) expansion against what came before; values
 * from configMapKeyRef, secretKeyRef, fieldRef (metadata.name, namespace, uid,
 * labels['k'], annotations['k'], spec.nodeName, spec.serviceAccountName,
 * status.hostIP(s), status.podIP(s)) and resourceFieldRef (limits/requests
 * with divisor; an unset limit is the node's allocatable).
 */
import type { KeyValue } from '../runtime/interface.js';
import type { ContainerSpec, Node, Pod } from '../types.js';
import type { PodObjectSource } from '../volumes/interface.js';

/** A reference that cannot be resolved: the container waits with reason CreateContainerConfigError and this message (upstream's text, e.g. `configmap "x" not found`). */
export class EnvError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EnvError';
  }
}

export interface EnvContext {
  readonly podIPs: readonly string[];
  readonly hostIPs: readonly string[];
  /** For resourceFieldRef without a limit, and spec.nodeName. */
  readonly node: Node | undefined;
}

export interface EnvResolver {
  containerEnv(pod: Pod, container: ContainerSpec, context: EnvContext): Promise<KeyValue[]>;
}

export type NewEnvResolver = (source: PodObjectSource) => EnvResolver;
