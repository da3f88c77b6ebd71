/**
 * Every controller `k8ts controller-manager` can run, by upstream's name.
 * Each controller exports its definition from its own folder
 * (`src/controllers/<name>/controller.ts`); the list is assembled here.
 */
import type { ControllerDefinition } from './context.js';
import { bootstrapSignerController } from './bootstrap/bootstrap-signer.js';
import { tokenCleanerController } from './bootstrap/token-cleaner.js';
import { csrApprovingController } from './certificates/approver/controller.js';
import { kubeletServingApproverController } from './certificates/approver/kubelet-serving-approver.js';
import { csrCleanerController } from './certificates/cleaner/controller.js';
import { csrSigningController } from './certificates/signer/controller.js';
import { cronJobController } from './cronjob/controller.js';
import { daemonSetController } from './daemonset/controller.js';
import { deploymentController } from './deployment/controller.js';
import { disruptionController } from './disruption/controller.js';
import { endpointsController } from './endpoints/controller.js';
import { endpointSliceController } from './endpointslice/controller.js';
import { garbageCollectorController } from './garbage-collector/controller.js';
import { jobController } from './job/controller.js';
import { namespaceController } from './namespace/controller.js';
import { nodeIpamController } from './nodeipam/controller.js';
import { nodeLifecycleController } from './nodelifecycle/controller.js';
import { podGcController } from './podgc/controller.js';
import { replicaSetController } from './replicaset/controller.js';
import { resourceQuotaController } from './resourcequota/controller.js';
import { rootCaCertPublisherController } from './rootcacertpublisher/controller.js';
import { serviceAccountController } from './serviceaccount/controller.js';
import { statefulSetController } from './statefulset/controller.js';
import { taintEvictionController } from './tainteviction/controller.js';
import { ttlAfterFinishedController } from './ttlafterfinished/controller.js';

export const CONTROLLERS: readonly ControllerDefinition[] = [
  bootstrapSignerController,
  cronJobController,
  csrApprovingController,
  csrCleanerController,
  csrSigningController,
  daemonSetController,
  deploymentController,
  disruptionController,
  endpointsController,
  endpointSliceController,
  garbageCollectorController,
  jobController,
  kubeletServingApproverController,
  namespaceController,
  nodeIpamController,
  nodeLifecycleController,
  podGcController,
  replicaSetController,
  resourceQuotaController,
  rootCaCertPublisherController,
  serviceAccountController,
  statefulSetController,
  taintEvictionController,
  tokenCleanerController,
  ttlAfterFinishedController,
];

/** The names of the definitions, sorted (for messages and help). */
export function controllerNames(definitions: readonly ControllerDefinition[] = CONTROLLERS): string[] {
  return definitions.map((d) => d.name).sort();
}

/** The definition of a name, if any. */
export function findController(name: string, definitions: readonly ControllerDefinition[] = CONTROLLERS): ControllerDefinition | undefined {
  return definitions.find((d) => d.name === name);
}

/** The names of the controllers off unless named in --controllers. */
export function disabledByDefault(definitions: readonly ControllerDefinition[] = CONTROLLERS): string[] {
  return definitions.filter((d) => !d.enabledByDefault).map((d) => d.name).sort();
}
