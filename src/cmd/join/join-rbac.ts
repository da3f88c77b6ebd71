/**
 * The RBAC a cluster needs so that nodes can join with a bootstrap token, as
 * kubeadm creates it (its kubeadm: names become k8ts: names):
 * - Role and RoleBinding k8ts:bootstrap-signer-clusterinfo: system:anonymous
 *   may get configmaps/cluster-info in kube-public (discovery);
 * - ClusterRoleBinding k8ts:kubelet-bootstrap: the join tokens' group may
 *   create and watch CSRs (system:node-bootstrapper);
 * - k8ts:node-autoapprove-bootstrap: the CSR approver approves their node
 *   client CSRs (…:certificatesigningrequests:nodeclient);
 * - k8ts:node-autoapprove-certificate-rotation: nodes renew their own
 *   (…:selfnodeclient, to group system:nodes);
 * - k8ts:node-proxier: a joined node's kube-proxy runs with the node's own
 *   identity (k8ts runs no kube-proxy DaemonSet with a service account of its
 *   own), so group system:nodes gets a ClusterRole of that name with what
 *   the proxy reads beyond what the Node authorizer gives a node: list and
 *   watch services, endpoints and endpointslices, and write events. Not
 *   upstream's system:node-proxier, which would also let every node read
 *   every Node (the Node authorizer lets a node read only its own).
 */
import type { KubeObject } from '../../machinery/meta.js';
import { isAlreadyExists, isNotFound } from '../../machinery/status.js';
import { CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, DEFAULT_NODE_TOKEN_GROUP } from '../../machinery/bootstrap-token.js';
import type { Client, ResourceRef } from '../../client/rest/interface.js';
import { builtinResource } from '../../client/rest/resources.js';

const RBAC = 'rbac.authorization.k8s.io';
const ROLES = builtinResource(RBAC, 'v1', 'roles');
const ROLE_BINDINGS = builtinResource(RBAC, 'v1', 'rolebindings');
const CLUSTER_ROLE_BINDINGS = builtinResource(RBAC, 'v1', 'clusterrolebindings');
const CLUSTER_ROLES = builtinResource(RBAC, 'v1', 'clusterroles');
const NODE_PROXIER = 'k8ts:node-proxier';

interface Subject {
  kind: 'User' | 'Group';
  apiGroup: string;
  name: string;
}
const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC, name });

export const CLUSTER_INFO_ROLE = 'k8ts:bootstrap-signer-clusterinfo';

function clusterRoleBinding(name: string, clusterRole: string, subjects: Subject[]): KubeObject {
  return { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: clusterRole }, subjects };
}

/** Every object, in the order they are written. */
export function joinRbacObjects(): { ref: ResourceRef; object: KubeObject }[] {
  const tokens = group(DEFAULT_NODE_TOKEN_GROUP);
  const nodes = group('system:nodes');
  return [
    {
      ref: ROLES,
      object: {
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name: CLUSTER_INFO_ROLE, namespace: CLUSTER_INFO_NAMESPACE },
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME], verbs: ['get'] }],
      },
    },
    {
      ref: ROLE_BINDINGS,
      object: {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: CLUSTER_INFO_ROLE, namespace: CLUSTER_INFO_NAMESPACE },
        roleRef: { apiGroup: RBAC, kind: 'Role', name: CLUSTER_INFO_ROLE },
        subjects: [user('system:anonymous')],
      },
    },
    { ref: CLUSTER_ROLE_BINDINGS, object: clusterRoleBinding('k8ts:kubelet-bootstrap', 'system:node-bootstrapper', [tokens]) },
    { ref: CLUSTER_ROLE_BINDINGS, object: clusterRoleBinding('k8ts:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', [tokens]) },
    { ref: CLUSTER_ROLE_BINDINGS, object: clusterRoleBinding('k8ts:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [nodes]) },
    {
      ref: CLUSTER_ROLES,
      object: {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: NODE_PROXIER },
        rules: [
          { apiGroups: [''], resources: ['services', 'endpoints'], verbs: ['list', 'watch'] },
          { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
          { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
        ],
      },
    },
    { ref: CLUSTER_ROLE_BINDINGS, object: clusterRoleBinding(NODE_PROXIER, NODE_PROXIER, [nodes]) },
  ];
}

/** Creates what is missing and puts back what was changed (a binding whose roleRef changed is made again: roleRef is immutable). */
export async function ensureJoinRbac(client: Client): Promise<void> {
  for (const { ref, object } of joinRbacObjects()) await ensureObject(client, ref, object);
}

/** Creates `object`, or brings an existing one's rules/roleRef/subjects (and a ConfigMap's data) back to it. */
export async function ensureObject(client: Client, ref: ResourceRef, object: KubeObject): Promise<void> {
  const resource = client.resource(ref);
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  const where = namespace !== undefined ? { namespace } : {};
  try {
    await resource.create(object);
    return;
  } catch (e: unknown) {
    if (!isAlreadyExists(e)) throw e;
  }
  const existing = await resource.get(name, where);
  // A ConfigMap's other keys are kept (cluster-info's jws-kubeconfig-<id> signatures belong to the bootstrap signer).
  const data = object['data'] as Record<string, string> | undefined;
  const wanted: KubeObject = data === undefined ? object : { ...object, data: { ...(existing['data'] as Record<string, string> | undefined), ...data } };
  const fields = ['rules', 'roleRef', 'subjects', 'data'].filter((f) => wanted[f] !== undefined);
  if (fields.every((f) => JSON.stringify(existing[f]) === JSON.stringify(wanted[f]))) return;
  if (object['roleRef'] !== undefined && JSON.stringify(existing['roleRef']) !== JSON.stringify(object['roleRef'])) {
    try {
      await resource.delete(name, where);
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
    }
    await resource.create(object);
    return;
  }
  const next: KubeObject = { ...existing };
  for (const f of fields) next[f] = wanted[f];
  await resource.update(next);
}
