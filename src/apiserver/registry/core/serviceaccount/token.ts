/**
 * POST serviceaccounts/NAME/token: the TokenRequest subresource (upstream's
 * TokenREST), which `kubectl create token` calls. It issues a bound
 * service-account token for the service account in the URL:
 *
 * - spec.audiences default to --api-audiences; spec.expirationSeconds to
 *   3600, at least 600 (10 minutes) and at most 2^32;
 * - spec.boundObjectRef may bind it to a Pod (running as this service
 *   account), a Secret or a Node of the namespace; a uid given there must be
 *   the object's (409 otherwise, the object was recreated); a pod's node is
 *   named in the token;
 * - the answer is the TokenRequest with status.token and
 *   status.expirationTimestamp, code 201.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import { formatTime } from '../../../../machinery/meta.js';
import { invalid as invalidField } from '../../../../machinery/field-errors.js';
import { badRequest, conflict, invalid, isNotFound } from '../../../../machinery/status.js';
import type { ServiceAccountTokenIssuer, TokenBinding } from '../../../auth/authenticators/service-account-token.js';
import { readObject } from '../../../endpoints/decode-object.js';
import { negotiateOutput } from '../../../endpoints/negotiation.js';
import type { Target, VerbHandler } from '../../../endpoints/target.js';
import { writeObject } from '../../../server/response.js';

export interface TokenRequestOptions {
  readonly issuer: ServiceAccountTokenIssuer;
  /** --api-audiences: a request's default audiences. */
  readonly apiAudiences: readonly string[];
}

const TOKEN_REQUEST = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number | null;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
}

/** Go's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

export function newTokenRequestHandlers(options: TokenRequestOptions): Readonly<Record<string, VerbHandler>> {
  const create: VerbHandler = async (ctx, t) => {
    const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
    const body = await readObject(ctx, TOKEN_REQUEST);
    const name = body.metadata.name ?? '';
    const namespace = body.metadata.namespace ?? '';
    if (name !== '' && name !== t.name) {
      throw invalid({ group: TOKEN_REQUEST.group, kind: TOKEN_REQUEST.kind }, t.name, [invalidField('metadata.name', name, 'must match the service account name if specified')]);
    }
    if (namespace !== '' && namespace !== t.namespace) {
      throw invalid({ group: TOKEN_REQUEST.group, kind: TOKEN_REQUEST.kind }, t.name, [invalidField('metadata.namespace', namespace, 'must match the service account namespace if specified')]);
    }
    const spec = ((body.spec ?? {}) as TokenRequestSpec);
    const expirationSeconds = spec.expirationSeconds ?? 3600;
    if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
      throw invalid({ group: TOKEN_REQUEST.group, kind: TOKEN_REQUEST.kind }, t.name, [invalidField('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes')]);
    }
    if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
      throw invalid({ group: TOKEN_REQUEST.group, kind: TOKEN_REQUEST.kind }, t.name, [invalidField('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds')]);
    }
    const serviceAccount = await t.store.get(t.namespace, t.name);
    const binding = spec.boundObjectRef != null ? await bind(t, spec.boundObjectRef) : undefined;
    const audiences = spec.audiences != null && spec.audiences.length > 0 ? spec.audiences : [...options.apiAudiences];
    const issued = await options.issuer.issue({ serviceAccount, audiences, expirationSeconds, ...(binding !== undefined ? { binding } : {}) });
    const answer = {
      kind: TOKEN_REQUEST.kind,
      apiVersion: `${TOKEN_REQUEST.group}/${TOKEN_REQUEST.version}`,
      metadata: { name: serviceAccount.metadata.name, namespace: serviceAccount.metadata.namespace, creationTimestamp: null },
      spec: { audiences, expirationSeconds, boundObjectRef: spec.boundObjectRef ?? null },
      status: { token: issued.token, expirationTimestamp: formatTime(issued.expiration) },
    };
    writeObject(ctx, 201, answer, format);
  };
  return { create };
}

async function bind(t: Target, ref: NonNullable<TokenRequestSpec['boundObjectRef']>): Promise<TokenBinding> {
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const get = async (resource: string, namespace: string): Promise<KubeObject> => {
    const store = t.lookup?.('', 'v1', resource);
    if (store === undefined) throw new Error(`internal error: ${resource} are not served`);
    return store.get(namespace, ref.name ?? '');
  };
  let object: KubeObject;
  let binding: TokenBinding;
  if (group === '' && kind === 'Pod') {
    object = await get('pods', t.namespace);
    const account = (object as { spec?: { serviceAccountName?: string } }).spec?.serviceAccountName ?? '';
    if (account !== t.name) throw badRequest(`cannot bind token for serviceaccount "${t.name}" to pod running with serviceaccount "${account}"`);
    const nodeName = (object as { spec?: { nodeName?: string } }).spec?.nodeName ?? '';
    binding = { pod: object, ...(nodeName !== '' ? { node: await nodeOf(t, nodeName) } : {}) };
  } else if (group === '' && kind === 'Secret') {
    object = await get('secrets', t.namespace);
    binding = { secret: object };
  } else if (group === '' && kind === 'Node') {
    object = await get('nodes', '');
    binding = { node: { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' } };
  } else {
    throw badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
  }
  const uid = object.metadata.uid ?? '';
  if ((ref.uid ?? '') !== '' && ref.uid !== uid) {
    throw conflict(
      { group, resource: kind },
      ref.name ?? '',
      // Upstream names only the reference's UID here (unlike a precondition conflict, which names both).
      `the UID in the bound object reference (${ref.uid ?? ''}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return binding;
}

/** The node a bound pod runs on; its name alone when the Node object is gone. */
async function nodeOf(t: Target, name: string): Promise<{ name: string; uid?: string }> {
  try {
    const node = await t.lookup?.('', 'v1', 'nodes')?.get(undefined, name);
    return node?.metadata.uid !== undefined ? { name, uid: node.metadata.uid } : { name };
  } catch (e: unknown) {
    if (isNotFound(e)) return { name };
    throw e;
  }
}
