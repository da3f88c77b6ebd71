/**
 * Creating and deleting a controller's pods, with upstream's Events
 * (SuccessfulCreate "Created pod: NAME", FailedCreate "Error creating: …",
 * SuccessfulDelete "Deleted pod: NAME", FailedDelete "Error deleting: …")
 * recorded on the controller object. A pod is made from the controller's
 * template: generateName `<owner>-`, the template's labels, annotations,
 * finalizers and spec, and the controller's ownerReference.
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { deepCopy, type KubeObject, type OwnerReference } from '../../machinery/meta.js';
import { isNotFound, StatusError } from '../../machinery/status.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { PODS } from '../../client/rest/resources.js';
import type { PodObject } from './types.js';

/** The ownerReference a controller puts on what it owns (upstream's NewControllerRef). */
export function newControllerRef(owner: KubeObject, gvk: { readonly apiVersion: string; readonly kind: string }): OwnerReference {
  return {
    apiVersion: gvk.apiVersion,
    kind: gvk.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The ownerReference with controller=true, if any (upstream's GetControllerOf). */
export function controllerRefOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The pod a controller would create from its template (upstream's GetPodFromTemplate). */
export function podFromTemplate(template: PodTemplateSpec, owner: KubeObject, controllerRef: OwnerReference): PodObject {
  const labels = { ...(template.metadata?.labels ?? {}) };
  if (Object.keys(labels).length === 0) throw new Error('unable to create pods, no labels');
  const metadata: PodObject['metadata'] = {
    generateName: `${owner.metadata.name ?? ''}-`,
    labels,
    ownerReferences: [{ ...controllerRef }],
  };
  if (owner.metadata.namespace) metadata.namespace = owner.metadata.namespace;
  if (template.metadata?.annotations) metadata.annotations = { ...template.metadata.annotations };
  if (template.metadata?.finalizers) metadata.finalizers = [...template.metadata.finalizers];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: deepCopy(template.spec ?? { containers: [] }) };
}

export interface PodControl {
  /** Create a pod from the template; records the Event; rejects with the API error. */
  createPod(options: { readonly template: PodTemplateSpec; readonly owner: KubeObject; readonly controllerRef: OwnerReference }): Promise<PodObject>;
  /** Delete a pod; records the Event; rejects with the API error (a NotFound is rejected too, without a Warning Event). */
  deletePod(options: { readonly namespace: string; readonly name: string; readonly owner: KubeObject }): Promise<void>;
}

/** True when the namespace is being deleted (upstream does not record FailedCreate then). */
function isNamespaceTerminating(e: unknown): boolean {
  return e instanceof StatusError && (e.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

export function newPodControl(client: Client, recorder: EventRecorder): PodControl {
  const pods = client.resource<PodObject>(PODS);
  return {
    async createPod({ template, owner, controllerRef }) {
      const pod = podFromTemplate(template, owner, controllerRef);
      let created: PodObject;
      try {
        created = await pods.create(pod, { namespace: owner.metadata.namespace ?? '' });
      } catch (e: unknown) {
        if (!isNamespaceTerminating(e)) recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
      recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
      return created;
    },
    async deletePod({ namespace, name, owner }) {
      try {
        await pods.delete(name, { namespace });
      } catch (e: unknown) {
        if (!isNotFound(e)) recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
      recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    },
  };
}
