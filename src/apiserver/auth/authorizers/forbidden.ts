/**
 * The 403 of a refused request, worded as upstream's responsewriters.Forbidden:
 *
 *   pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"
 *   nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope
 *   forbidden: User "system:anonymous" cannot get path "/api"
 *
 * The authorizer's reason, when it gave one, follows after ": ".
 */
import { StatusError } from '../../../machinery/status.js';
import type { Attributes } from './interface.js';

export function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.isResourceRequest) return `User "${user}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const where = a.namespace === '' ? 'at the cluster scope' : `in the namespace "${a.namespace}"`;
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${where}`;
}

export function forbiddenError(a: Attributes, reason: string): StatusError {
  const detail = reason === '' ? forbiddenMessage(a) : `${forbiddenMessage(a)}: ${reason}`;
  const resource = a.isResourceRequest ? a.resource : '';
  const group = a.isResourceRequest ? a.apiGroup : '';
  const name = a.isResourceRequest ? a.name : '';
  let subject: string;
  if (resource === '' && group === '') subject = 'forbidden';
  else {
    const qualified = group === '' ? resource : `${resource}.${group}`;
    subject = name === '' ? `${qualified} is forbidden` : `${qualified} "${name}" is forbidden`;
  }
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    message: `${subject}: ${detail}`,
    details: { ...(name !== '' ? { name } : {}), ...(group !== '' ? { group } : {}), ...(resource !== '' ? { kind: resource } : {}) },
  });
}
