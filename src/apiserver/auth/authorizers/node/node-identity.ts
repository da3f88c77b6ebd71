/**
 * Which node a user is, as upstream's default NodeIdentifier: a user named
 * `system:node:<name>` in the group `system:nodes` is the node `<name>`
 * (an empty name is a node that cannot be identified); anyone else is not a node.
 */
import type { UserInfo } from '../../../server/context.js';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

export interface NodeIdentity {
  readonly isNode: boolean;
  /** '' when the user is not a node, or is one whose name is empty. */
  readonly nodeName: string;
}

export function nodeIdentity(user: UserInfo): NodeIdentity {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}
