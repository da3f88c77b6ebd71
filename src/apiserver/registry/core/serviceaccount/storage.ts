/**
 * ServiceAccounts: a plain store, and the token subresource (TokenRequest)
 * when the API server has a service-account signing key.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { plainStrategy } from '../../generic/strategy.js';
import { serviceAccountTable } from './table.js';
import { newTokenRequestHandlers, type TokenRequestOptions } from './token.js';

export function serviceAccountDefinition(tokens?: TokenRequestOptions): ResourceDefinition {
  return {
    strategy: { ...plainStrategy, table: serviceAccountTable as unknown as TableConvertor<KubeObject> },
    validateName: nameIsDNSSubdomain,
    returnDeletedObject: true,
    ...(tokens !== undefined ? { subresourceHandlers: { token: newTokenRequestHandlers(tokens) } } : {}),
  };
}
