/**
 * Pods: upstream's defaults and validation (src/api/core/v1), what a default
 * cluster's admission adds at creation (service account, default
 * tolerations, priority), a Pending status with the QoS class, the fields a
 * field selector may name (the kubelet watches `spec.nodeName=NODE`),
 * graceful deletion (a pod bound to a node is only marked on delete and the
 * kubelet finishes the deletion once its containers have stopped), and the
 * binding and eviction subresources.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { defaultPod } from '../../../../api/core/v1/defaults.js';
import { podQOSClass } from '../../../../api/core/v1/qos.js';
import { validatePod, validatePodStatusUpdate, validatePodUpdate } from '../../../../api/core/v1/validation.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { formatTime } from '../../../../machinery/meta.js';
import { validatePodName } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import type { GracePeriodPolicy } from '../../generic/store.js';
import { bindingHandlers } from './binding.js';
import { podEphemeralContainersStrategy } from './ephemeral-containers.js';
import { evictionHandlers } from './eviction.js';
import { podTable } from './table.js';
import { newWorkloadStrategy } from './workload-strategy.js';

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

/** Upstream's PrepareForCreate: a Pending status with the pod's QoS class, and the SchedulingGated condition when gated. */
function preparePodForCreate(p: Pod): void {
  // QoS is computed on the defaulted pod (requests default to limits), as upstream's order has it.
  defaultPod(p);
  const status: NonNullable<Pod['status']> = { phase: 'Pending', qosClass: podQOSClass(p) };
  if ((p.spec?.schedulingGates ?? []).length > 0) {
    status.conditions = [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
        lastProbeTime: null as unknown as string,
        lastTransitionTime: formatTime(new Date()),
      },
    ];
  }
  (p as { status?: Pod['status'] }).status = status;
}

const strategies = newWorkloadStrategy<Pod>({
  hasStatus: true,
  // Since 1.33 (KEP-5067, not behind a feature gate) a pod's generation is 1 at
  // create and grows with each change of its spec.
  generation: true,
  validateName: validatePodName,
  defaults: defaultPod,
  prepareForCreate: preparePodForCreate,
  validate: validatePod,
  validateUpdate: validatePodUpdate,
  validateStatusUpdate: validatePodStatusUpdate,
  selectableFields: {
    'spec.nodeName': (o) => pod(o).spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => pod(o).spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => pod(o).spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => pod(o).spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(pod(o).spec?.hostNetwork === true),
    'status.phase': (o) => pod(o).status?.phase ?? '',
    'status.podIP': (o) => pod(o).status?.podIP ?? '',
    'status.nominatedNodeName': (o) => pod(o).status?.nominatedNodeName ?? '',
    // Upstream's conversion accepts these two: spec.host is the old name of spec.nodeName; status.podIPs
    // passes, but no value is ever set for it, so it matches as the empty string.
    'spec.host': (o) => pod(o).spec?.nodeName ?? '',
    'status.podIPs': () => '',
  },
  table: podTable as never,
});

export const podStrategy = strategies.strategy;
export const podStatusStrategy = strategies.statusStrategy!;

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
  const period = requested ?? p.spec.terminationGracePeriodSeconds ?? 30;
  // Upstream's CheckGracefulDelete: a negative period becomes 1.
  return period < 0 ? 1 : period;
};

export const podDefinition: ResourceDefinition = {
  strategy: podStrategy,
  statusStrategy: podStatusStrategy,
  validateName: validatePodName,
  gracePeriod: podGracePeriod,
  returnDeletedObject: true,
  subresourceHandlers: { binding: bindingHandlers, eviction: evictionHandlers },
  subresourceStrategies: { ephemeralcontainers: podEphemeralContainersStrategy(podStrategy) },
};
