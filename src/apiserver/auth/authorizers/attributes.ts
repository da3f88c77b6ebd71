/**
 * The authorization attributes of a request, read from its RequestInfo and
 * its user, as upstream's GetAuthorizerAttributes does.
 */
import type { UserInfo } from '../../server/context.js';
import type { RequestInfo } from '../../server/request-info.js';
import type { Attributes } from './interface.js';

export function attributesFrom(info: RequestInfo, user: UserInfo, query?: URLSearchParams): Attributes {
  const labelSelector = query?.get('labelSelector') ?? undefined;
  const fieldSelector = query?.get('fieldSelector') ?? undefined;
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    ...(labelSelector !== undefined && labelSelector !== '' ? { labelSelector } : {}),
    ...(fieldSelector !== undefined && fieldSelector !== '' ? { fieldSelector } : {}),
  };
}
