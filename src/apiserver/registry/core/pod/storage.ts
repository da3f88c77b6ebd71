/**
 * Pods: the spec/status split, the fields a field selector may name (the
 * kubelet watches `spec.nodeName=NODE`), and graceful deletion: a pod bound to
 * a node is only marked on delete (deletionTimestamp + grace period) and the
 * kubelet finishes the deletion once its containers have stopped.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { validatePodName } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import type { GracePeriodPolicy } from '../../generic/store.js';
import { baseStrategy, statusStrategy, type Strategy } from '../../generic/strategy.js';
import { podTable } from './table.js';

interface PodFields {
  spec?: {
    nodeName?: string;
    restartPolicy?: string;
    schedulerName?: string;
    serviceAccountName?: string;
    hostNetwork?: boolean;
    terminationGracePeriodSeconds?: number;
  };
  status?: { phase?: string; podIP?: string; nominatedNodeName?: string };
}

const pod = (o: KubeObject): PodFields => o as KubeObject & PodFields;

export const podStrategy: Strategy = {
  ...baseStrategy,
  generation: false,
  prepareForCreate: (o) => {
    pod(o).status = { phase: 'Pending' };
  },
  selectableFields: {
    'spec.nodeName': (o) => pod(o).spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => pod(o).spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => pod(o).spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => pod(o).spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(pod(o).spec?.hostNetwork === true),
    'status.phase': (o) => pod(o).status?.phase ?? '',
    'status.podIP': (o) => pod(o).status?.podIP ?? '',
    'status.nominatedNodeName': (o) => pod(o).status?.nominatedNodeName ?? '',
  },
  table: podTable as unknown as TableConvertor<KubeObject>,
};

/**
 * Upstream's rule: a pod that never reached a node, or that has finished,
 * goes at once; otherwise the requested grace period, or the pod's own
 * terminationGracePeriodSeconds (default 30).
 */
export const podGracePeriod: GracePeriodPolicy = (object, requested) => {
  const p = pod(object);
  if (p.spec?.nodeName === undefined || p.spec.nodeName === '') return 0;
  const phase = p.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return 0;
  return requested ?? p.spec.terminationGracePeriodSeconds ?? 30;
};

export const podDefinition: ResourceDefinition = {
  strategy: podStrategy,
  statusStrategy: statusStrategy(podStrategy),
  validateName: validatePodName,
  gracePeriod: podGracePeriod,
};
