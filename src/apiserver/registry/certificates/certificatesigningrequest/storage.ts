/**
 * The CertificateSigningRequest resource: its strategies (strategy.ts), the
 * /status and /approval views, and a store whose create writes the requesting
 * user into spec.username, uid, groups and extra, whatever the client sent
 * (upstream's PrepareForCreate reads the user from the request context).
 */
import type { CertificateSigningRequestSpec } from 'kubernetes-types/certificates/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { validatePathSegmentName } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { GenericStore, type WriteOptions } from '../../generic/store.js';
import type { UserInfo } from '../../../server/context.js';
import { certificateSigningRequestApprovalStrategy, certificateSigningRequestStatusStrategy, certificateSigningRequestStrategy } from './strategy.js';

/** spec with the requesting user's identity in place of whatever the client sent. */
export function withRequestor(spec: CertificateSigningRequestSpec, user: UserInfo | undefined): CertificateSigningRequestSpec {
  const { username: _u, uid: _i, groups: _g, extra: _e, ...rest } = spec;
  if (user === undefined) return rest;
  const extra = user.extra !== undefined && Object.keys(user.extra).length > 0 ? structuredClone(user.extra) : undefined;
  return {
    ...rest,
    username: user.name,
    ...(user.uid !== undefined && user.uid !== '' ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(extra !== undefined ? { extra: extra as Record<string, string[]> } : {}),
  };
}

class CertificateSigningRequestStore extends GenericStore {
  override async create(namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const spec = (typeof body.spec === 'object' && body.spec !== null ? body.spec : {}) as CertificateSigningRequestSpec;
    body.spec = withRequestor(spec, options.user);
    return super.create(namespace, body, options);
  }
}

export const certificateSigningRequestDefinition: ResourceDefinition = {
  strategy: certificateSigningRequestStrategy,
  statusStrategy: certificateSigningRequestStatusStrategy,
  subresourceStrategies: { approval: certificateSigningRequestApprovalStrategy },
  // Upstream's ValidateCertificateRequestName accepts any name that can be a path segment.
  validateName: validatePathSegmentName,
  newStore: (config) => new CertificateSigningRequestStore(config),
};
