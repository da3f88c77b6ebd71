/**
 * The Node authorizer (upstream's plugin/pkg/auth/authorizer/node): for
 * kubelets only (users system:node:<name> in group system:nodes; anyone else
 * gets no opinion). Secrets, configmaps, PVCs, PVs, resource claims,
 * volume attachments and service-account tokens: only those a pod bound to
 * the node needs (the graph). Nodes, pods, leases and CSINodes: by name and
 * field selector, as upstream with AuthorizeNodeWithSelectors (on since
 * 1.32). Everything else: upstream's static node rules. Writes to the node's
 * own objects are narrowed further by the NodeRestriction admission plugin.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { parseFieldSelector } from '../../../../machinery/selectors/field-selector.js';
import type { RuleSet, RuleResolvingAuthorizer } from '../always.js';
import type { Attributes, AuthorizationResult } from '../interface.js';
import { ruleAllows } from '../rbac/rule-matching.js';
import type { NodeGraph, VertexType } from './graph.js';
import { nodeIdentity } from './node-identity.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const ALLOW: AuthorizationResult = { decision: 'Allow', reason: '' };
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/** The value an `=` requirement of the request's field selector demands of `field`, if any. */
function fieldSelectorValue(a: Attributes, field: string): string | undefined {
  if (a.fieldSelector === undefined) return undefined;
  try {
    return parseFieldSelector(a.fieldSelector).requiredValue(field);
  } catch {
    return undefined;
  }
}

/**
 * The object's name. Upstream's RequestInfo takes a list or watch with
 * `fieldSelector=metadata.name=x` as a request for `x` (how kubelets watch
 * one secret); ours leaves the name empty, so it is read here.
 */
function nameOf(a: Attributes): string {
  if (a.name !== '' || (a.verb !== 'list' && a.verb !== 'watch')) return a.name;
  return fieldSelectorValue(a, 'metadata.name') ?? '';
}

export interface NodeAuthorizerOptions {
  readonly graph: NodeGraph;
  /** The rules every node has for resources the graph does not subdivide (upstream's NodeRules()). */
  readonly rules: readonly PolicyRule[];
}

export function newNodeAuthorizer(options: NodeAuthorizerOptions): RuleResolvingAuthorizer {
  const { graph, rules } = options;

  const related = (nodeName: string, type: VertexType, a: Attributes): AuthorizationResult => {
    const name = nameOf(a);
    if (name === '') return noOpinion('No Object name found');
    const path = graph.hasPathFrom(nodeName, type, a.namespace, name);
    return path.found ? ALLOW : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  };

  const get = (nodeName: string, type: VertexType, a: Attributes): AuthorizationResult => {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return related(nodeName, type, a);
  };

  const readNamespaced = (nodeName: string, type: VertexType, a: Attributes): AuthorizationResult => {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return related(nodeName, type, a);
  };

  const statusUpdate = (nodeName: string, type: VertexType, a: Attributes): AuthorizationResult => {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return related(nodeName, type, a);
  };

  const createToken = (nodeName: string, a: Attributes): AuthorizationResult => {
    if (a.verb !== 'create' || a.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return related(nodeName, 'serviceaccount', a);
  };

  const ownByName = (nodeName: string, a: Attributes, what: string, extra: () => AuthorizationResult | undefined): AuthorizationResult => {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion(`can only get, create, update, patch, or delete a ${what}`);
    const refused = extra();
    if (refused !== undefined) return refused;
    // On create the name is in the body, which NodeRestriction checks.
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion(`can only access ${what} with the same name as the requesting node`);
    return ALLOW;
  };

  const lease = (nodeName: string, a: Attributes): AuthorizationResult =>
    ownByName(nodeName, a, 'node lease', () => (a.namespace !== NODE_LEASE_NAMESPACE ? noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`) : undefined));

  const csiNode = (nodeName: string, a: Attributes): AuthorizationResult =>
    ownByName(nodeName, a, 'CSINode', () => (a.subresource !== '' ? noOpinion('cannot authorize CSINode subresources') : undefined));

  const resourceSlice = (nodeName: string, a: Attributes): AuthorizationResult => {
    if (a.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (a.verb) {
      case 'create':
        return ALLOW; // NodeRestriction checks the slice's nodeName
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return related(nodeName, 'resourceslice', a);
      case 'watch':
      case 'list':
      case 'deletecollection':
        return fieldSelectorValue(a, 'nodeName') === nodeName ? ALLOW : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  };

  const node = (nodeName: string, a: Attributes): AuthorizationResult => {
    if (a.subresource === '') {
      if (a.verb === 'create' || a.verb === 'update' || a.verb === 'patch') return ALLOW; // NodeRestriction: only its own
      if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') {
        // By name rather than through the graph, so that a kubelet can look for its Node before creating it.
        const name = nameOf(a);
        if (name === nodeName) return ALLOW;
        if (name === '') return noOpinion(`node '${nodeName}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${nodeName}' cannot read '${name}', only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) return ALLOW;
    return noOpinion('');
  };

  const pod = (nodeName: string, a: Attributes): AuthorizationResult => {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return get(nodeName, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (fieldSelectorValue(a, 'spec.nodeName') === nodeName) return ALLOW;
          if (nameOf(a) !== '') return related(nodeName, 'pod', a);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        if (a.verb === 'create' || a.verb === 'delete') return ALLOW; // mirror pods; NodeRestriction narrows
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion('');
  };

  return {
    authorize(a: Attributes): AuthorizationResult {
      const { isNode, nodeName } = nodeIdentity(a.user);
      if (!isNode) return noOpinion('');
      if (nodeName === '') return noOpinion(`unknown node for user "${a.user.name}"`);
      if (a.isResourceRequest) {
        switch (`${a.resource}.${a.apiGroup}`) {
          case 'secrets.':
            return readNamespaced(nodeName, 'secret', a);
          case 'configmaps.':
            return readNamespaced(nodeName, 'configmap', a);
          case 'persistentvolumeclaims.':
            return a.subresource === 'status' ? statusUpdate(nodeName, 'pvc', a) : get(nodeName, 'pvc', a);
          case 'persistentvolumes.':
            return get(nodeName, 'pv', a);
          case 'resourceclaims.resource.k8s.io':
            return get(nodeName, 'resourceclaim', a);
          case 'volumeattachments.storage.k8s.io':
            return get(nodeName, 'volumeattachment', a);
          case 'serviceaccounts.':
            return createToken(nodeName, a);
          case 'leases.coordination.k8s.io':
            return lease(nodeName, a);
          case 'csinodes.storage.k8s.io':
            return csiNode(nodeName, a);
          case 'resourceslices.resource.k8s.io':
            return resourceSlice(nodeName, a);
          case 'nodes.':
            return node(nodeName, a);
          case 'pods.':
            return pod(nodeName, a);
        }
      }
      return rules.some((rule) => ruleAllows(a, rule)) ? ALLOW : noOpinion('');
    },
    /** As upstream: a node's permissions are not enumerable, so its rules are reported incomplete. */
    async rulesFor(user): Promise<RuleSet> {
      if (nodeIdentity(user).isNode) return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
      return { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}
