/**
 * NodeRestriction (upstream's plugin/pkg/admission/noderestriction): what a
 * kubelet (system:node:<name> in system:nodes) may write, beyond what the Node
 * authorizer lets through by verb. A node may create only mirror pods bound to
 * itself, owned by its Node and naming no other API object; delete and evict
 * only pods bound to itself; update only the status of its own pods (not their
 * labels); create and update only its own Node, never its taints or config
 * source, nor labels outside the kubelet's set; use only its own Lease in
 * kube-node-lease and its own CSINode; request tokens only bound to its pods;
 * change only status.capacity/conditions of PVCs. Other users pass untouched.
 *
 * Runs as a validating plugin: k8ts admits deletes only in the validating
 * phase, and every check here reads the object as it will be stored.
 */
import type { Node, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { forbidden, isNotFound, StatusError } from '../../../../machinery/status.js';
import { nodeIdentity } from '../../../auth/authorizers/node/node-identity.js';
import { podConfigMapNames, podSecretNames } from '../../../auth/authorizers/node/pod-references.js';
import type { AdmissionAttributes, AdmissionDependencies, Operation, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { forbiddenLabels, modifiedLabels } from './node-labels.js';
import { semanticEqual } from './semantic-equal.js';

export const NAME = 'NodeRestriction';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

type PodObject = KubeObject & Pod;
type NodeObject = KubeObject & Node;

/** The name upstream's admission.NewForbidden prints: the request's, else the object's (or its generateName), else "Unknown". */
function nameFor(a: AdmissionAttributes): string {
  if (a.name !== '') return a.name;
  const meta = a.object?.metadata;
  if (meta?.name !== undefined && meta.name !== '') return meta.name;
  if (meta?.generateName !== undefined && meta.generateName !== '') return meta.generateName;
  return 'Unknown';
}

const refuse = (a: AdmissionAttributes, message: string): StatusError => forbidden({ group: a.resource.group, resource: a.resource.resource }, nameFor(a), message);

export function newNodeRestriction(deps: AdmissionDependencies): ValidatingAdmissionPlugin {
  const store = (group: string, resource: string) => {
    const found = deps.stores(group, 'v1', resource);
    if (found === undefined) throw new Error(`the ${group === '' ? '' : `${group}/`}v1 ${resource} resource is not served`);
    return found;
  };

  /** Upstream looks pods and nodes up in informers: a missing one is its NotFound, any other failure a Forbidden. */
  async function lookup<T>(a: AdmissionAttributes, read: () => Promise<KubeObject>): Promise<T> {
    try {
      return (await read()) as unknown as T;
    } catch (e: unknown) {
      if (isNotFound(e)) throw e;
      throw refuse(a, e instanceof Error ? e.message : String(e));
    }
  }
  const getPod = (a: AdmissionAttributes, name: string) => lookup<PodObject>(a, () => store('', 'pods').get(a.namespace, name));

  async function podCreate(nodeName: string, a: AdmissionAttributes): Promise<void> {
    const pod = a.object as PodObject;
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
      throw refuse(a, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${nodeName}" can only create mirror pods`);
    }
    if ((pod.spec?.nodeName ?? '') !== nodeName) throw refuse(a, `node "${nodeName}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) throw refuse(a, `node "${nodeName}" can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw refuse(a, `node "${nodeName}" can only create pods with an owner reference set to itself`);
    const owner = owners[0]!;
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) throw refuse(a, `node "${nodeName}" can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw refuse(a, `node "${nodeName}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw refuse(a, `node "${nodeName}" must not set blockOwnerDeletion on an owner reference`);
    const node = await lookup<NodeObject>(a, () => store('', 'nodes').get(undefined, nodeName));
    if (owner.uid !== (node.metadata.uid ?? '')) throw refuse(a, `node ${nodeName} UID mismatch: expected ${owner.uid} got ${node.metadata.uid ?? ''}`);
    if ((pod.spec?.serviceAccountName ?? '') !== '') throw refuse(a, `node "${nodeName}" can not create pods that reference a service account`);
    if (podSecretNames(pod).size > 0) throw refuse(a, `node "${nodeName}" can not create pods that reference secrets`);
    if (podConfigMapNames(pod).size > 0) throw refuse(a, `node "${nodeName}" can not create pods that reference configmaps`);
    const volumes = pod.spec?.volumes ?? [];
    if (volumes.some((v) => (v.projected?.sources ?? []).some((s) => (s as { clusterTrustBundle?: unknown }).clusterTrustBundle !== undefined))) {
      throw refuse(a, `node "${nodeName}" can not create pods that reference clustertrustbundles`);
    }
    if (volumes.some((v) => v.persistentVolumeClaim !== undefined)) throw refuse(a, `node "${nodeName}" can not create pods that reference persistentvolumeclaims`);
  }

  async function pod(nodeName: string, a: AdmissionAttributes): Promise<void> {
    switch (a.operation) {
      case 'CREATE':
        return podCreate(nodeName, a);
      case 'DELETE': {
        const existing = await getPod(a, a.name);
        if ((existing.spec?.nodeName ?? '') !== nodeName) throw refuse(a, `node "${nodeName}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      default:
        throw refuse(a, `unexpected operation "${a.operation}", node "${nodeName}" can only create and delete mirror pods`);
    }
  }

  function podStatus(nodeName: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw refuse(a, `unexpected operation "${a.operation}"`);
    const old = a.oldObject as PodObject;
    const next = a.object as PodObject;
    if ((old.spec?.nodeName ?? '') !== nodeName) throw refuse(a, `node "${nodeName}" can only update pod status for pods with spec.nodeName set to itself`);
    if (!semanticEqual(old.metadata.labels, next.metadata.labels)) throw refuse(a, `node "${nodeName}" cannot update labels through pod status`);
    const claims = (p: PodObject) => (p.status?.resourceClaimStatuses ?? []).map((s) => ({ name: s.name, claim: s.resourceClaimName ?? null }));
    if (!semanticEqual(claims(old), claims(next))) throw refuse(a, `node "${nodeName}" cannot update resource claim statues`);
  }

  async function podEviction(nodeName: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE') throw refuse(a, `unexpected operation ${a.operation}`);
    const podName = a.name !== '' ? a.name : (a.object?.metadata.name ?? '');
    if (podName === '') throw refuse(a, 'could not determine pod from request data');
    const existing = await getPod(a, podName);
    if ((existing.spec?.nodeName ?? '') !== nodeName) throw refuse(a, `node ${nodeName} can only evict pods with spec.nodeName set to itself`);
  }

  function node(nodeName: string, a: AdmissionAttributes): void {
    const requested = a.name !== '' ? a.name : (a.object?.metadata.name ?? '');
    if (requested !== nodeName) throw refuse(a, `node "${nodeName}" is not allowed to modify node "${requested}"`);
    const next = a.object as NodeObject | undefined;
    if (a.operation === 'CREATE' && next !== undefined) {
      if (next.spec?.configSource !== undefined && next.spec.configSource !== null) throw refuse(a, `node "${nodeName}" is not allowed to create pods with a non-nil configSource`);
      const forbiddenOnCreate = forbiddenLabels(modifiedLabels(next.metadata.labels, undefined));
      if (forbiddenOnCreate.length > 0) throw refuse(a, `node "${nodeName}" is not allowed to set the following labels: ${forbiddenOnCreate.join(', ')}`);
    }
    if (a.operation === 'UPDATE' && next !== undefined) {
      const old = a.oldObject as NodeObject;
      const source = next.spec?.configSource;
      if (source !== undefined && source !== null && !semanticEqual(source, old.spec?.configSource)) {
        throw refuse(a, `node "${nodeName}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!semanticEqual(next.spec?.taints, old.spec?.taints)) throw refuse(a, `node "${nodeName}" is not allowed to modify taints`);
      const forbiddenOnUpdate = forbiddenLabels(modifiedLabels(next.metadata.labels, old.metadata.labels));
      // Upstream's message for this one does not name the node.
      if (forbiddenOnUpdate.length > 0) throw refuse(a, `is not allowed to modify labels: ${forbiddenOnUpdate.join(', ')}`);
    }
  }

  function pvcStatus(nodeName: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw refuse(a, `unexpected operation "${a.operation}"`);
    // Everything but status.capacity, status.conditions, the expansion-recovery fields, resourceVersion and managedFields must stay.
    const comparable = (o: KubeObject | undefined) => {
      const pvc = structuredClone(o ?? {}) as Record<string, unknown> & PersistentVolumeClaim;
      const meta = (pvc.metadata ?? {}) as Record<string, unknown>;
      delete meta.resourceVersion;
      delete meta.managedFields;
      const status = (pvc.status ?? {}) as Record<string, unknown>;
      for (const field of ['capacity', 'conditions', 'allocatedResourceStatuses', 'allocatedResources']) delete status[field];
      return pvc;
    };
    const old = comparable(a.oldObject);
    const next = comparable(a.object);
    if (!semanticEqual(old, next)) {
      throw refuse(a, `node "${nodeName}" is not allowed to update fields other than status.capacity and status.conditions: ${JSON.stringify({ old, new: next })}`);
    }
  }

  async function serviceAccountToken(a: AdmissionAttributes, nodeName: string): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const ref = (a.object as { spec?: { boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string } } } | undefined)?.spec?.boundObjectRef;
    if (ref === undefined || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || (ref.name ?? '') === '') throw refuse(a, 'node requested token not bound to a pod');
    if ((ref.uid ?? '') === '') throw refuse(a, 'node requested token with a pod binding without a uid');
    const bound = await getPod(a, ref.name!);
    if (ref.uid !== bound.metadata.uid) {
      throw refuse(a, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if ((bound.spec?.nodeName ?? '') !== nodeName) throw refuse(a, 'node requested token bound to a pod scheduled on a different node');
  }

  function ownNamed(a: AdmissionAttributes, nodeName: string, what: string): void {
    const name = a.operation === 'CREATE' ? (a.object?.metadata.name ?? '') : a.name;
    if (name !== nodeName) throw refuse(a, `can only access ${what} with the same name as the requesting node`);
  }

  return {
    name: NAME,
    handles: (operation: Operation) => operation === 'CREATE' || operation === 'UPDATE' || operation === 'DELETE',
    // Only nodes' requests are checked: anyone else's is answered without a promise.
    validate(a: AdmissionAttributes): Promise<void> | void {
      const identity = nodeIdentity(a.userInfo);
      if (!identity.isNode) return;
      return validateNode(a, identity.nodeName);
    },
  };

  async function validateNode(a: AdmissionAttributes, nodeName: string): Promise<void> {
    if (nodeName === '') throw refuse(a, `could not determine node from user "${a.userInfo.name}"`);
    switch (`${a.resource.resource}.${a.resource.group}`) {
      case 'pods.':
        switch (a.subresource) {
          case '':
            return pod(nodeName, a);
          case 'status':
            return podStatus(nodeName, a);
          case 'eviction':
            return podEviction(nodeName, a);
          default:
            throw refuse(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
        }
      case 'nodes.':
        return node(nodeName, a);
      case 'persistentvolumeclaims.':
        if (a.subresource !== 'status') throw refuse(a, 'may only update PVC status');
        return pvcStatus(nodeName, a);
      case 'serviceaccounts.':
        return serviceAccountToken(a, nodeName);
      case 'leases.coordination.k8s.io':
        if (a.namespace !== NODE_LEASE_NAMESPACE) throw refuse(a, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        return ownNamed(a, nodeName, 'node lease');
      case 'csinodes.storage.k8s.io':
        return ownNamed(a, nodeName, 'CSINode');
      default:
        return;
    }
  }
}
