/**
 * Who may use the kubelet's API, decided as upstream's kubelet does with
 * webhook authentication and authorization:
 *
 * - authentication: a client certificate of --client-ca-file (CN the user, O
 *   the groups), or a bearer token the API server vouches for (TokenReview);
 *   anything else is 401 "Unauthorized" (anonymous access is off);
 * - authorization: a SubjectAccessReview for the node (resource nodes, name
 *   the node, verb from the HTTP method: HEAD and OPTIONS have none) with
 *   subresource stats, metrics, log or checkpoint for /stats, /metrics, /logs
 *   and /checkpoint, and proxy for everything else; /healthz, /configz,
 *   /statusz and /pods are first checked for their own subresource
 *   (upstream's KubeletFineGrainedAuthz), then for proxy. A denial is 403
 *   "Forbidden (user=…, verb=…, resource=nodes, subresource=…)".
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Client, ResourceRef } from '../../client/rest/interface.js';
import type { KubeObject } from '../../machinery/meta.js';

export interface KubeletUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface NodeRequestAttributes {
  readonly verb: string;
  readonly subresource: string;
}

const SUBJECT_ACCESS_REVIEWS: ResourceRef = {
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
};
const TOKEN_REVIEWS: ResourceRef = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };

/** Upstream's kubelet maps only these methods; any other (HEAD, OPTIONS) is checked with the empty verb, which only `*` grants. */
const API_VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function isSubpath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The attributes to check, in order; every one must be allowed (upstream's GetRequestAttributes). */
export function nodeRequestAttributes(method: string, path: string): NodeRequestAttributes[] {
  const verb = API_VERBS[method.toUpperCase()] ?? '';
  if (isSubpath(path, '/stats')) return [{ verb, subresource: 'stats' }];
  if (isSubpath(path, '/metrics')) return [{ verb, subresource: 'metrics' }];
  if (isSubpath(path, '/logs')) return [{ verb, subresource: 'log' }];
  if (isSubpath(path, '/checkpoint')) return [{ verb, subresource: 'checkpoint' }];
  return [{ verb, subresource: 'proxy' }];
}

/** Fine-grained first: /healthz, /configz, /statusz and /pods may be allowed by their own subresource alone. */
export function fineGrained(path: string): string | undefined {
  if (isSubpath(path, '/healthz')) return 'healthz';
  if (isSubpath(path, '/configz')) return 'configz';
  if (isSubpath(path, '/statusz')) return 'statusz';
  if (isSubpath(path, '/pods') || isSubpath(path, '/runningpods')) return 'pods';
  return undefined;
}

function asList(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

export interface AuthOptions {
  readonly nodeName: string;
  readonly client: Client;
}

export type AuthResult =
  | { readonly allowed: true; readonly user: KubeletUser }
  | { readonly allowed: false; readonly code: 401 | 403 | 500; readonly message: string };

export class KubeletAuth {
  constructor(private readonly options: AuthOptions) {}

  async authenticate(req: IncomingMessage): Promise<KubeletUser | undefined> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const cert = socket.getPeerCertificate();
      const cn = cert.subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (name !== undefined && name !== '') return { name, groups: asList(cert.subject.O) };
    }
    const authorization = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (bearer === null) return undefined;
    const review = (await this.options.client.resource(TOKEN_REVIEWS).create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token: bearer[1] },
    } as KubeObject)) as KubeObject & { status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } } };
    const user = review.status?.user;
    if (review.status?.authenticated !== true || user?.username === undefined) return undefined;
    return { name: user.username, groups: user.groups ?? [], ...(user.uid !== undefined ? { uid: user.uid } : {}), ...(user.extra !== undefined ? { extra: user.extra } : {}) };
  }

  private async allowed(user: KubeletUser, attrs: NodeRequestAttributes): Promise<boolean> {
    const review = (await this.options.client.resource(SUBJECT_ACCESS_REVIEWS).create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: user.name,
        groups: [...user.groups],
        ...(user.uid !== undefined ? { uid: user.uid } : {}),
        ...(user.extra !== undefined ? { extra: user.extra } : {}),
        resourceAttributes: { verb: attrs.verb, version: 'v1', resource: 'nodes', subresource: attrs.subresource, name: this.options.nodeName },
      },
    } as KubeObject)) as KubeObject & { status?: { allowed?: boolean } };
    return review.status?.allowed === true;
  }

  /** Authenticate and authorize one request. */
  async check(req: IncomingMessage): Promise<AuthResult> {
    let user: KubeletUser | undefined;
    try {
      user = await this.authenticate(req);
    } catch {
      return { allowed: false, code: 401, message: 'Unauthorized' };
    }
    if (user === undefined) return { allowed: false, code: 401, message: 'Unauthorized' };
    const path = new URL(req.url ?? '/', 'https://kubelet').pathname;
    const method = req.method ?? 'GET';
    const verb = API_VERBS[method.toUpperCase()] ?? '';
    const describe = (a: NodeRequestAttributes): string => `(user=${user.name}, verb=${a.verb}, resource=nodes, subresource=${a.subresource})`;
    try {
      const specific = fineGrained(path);
      if (specific !== undefined && (await this.allowed(user, { verb, subresource: specific }))) return { allowed: true, user };
      for (const attrs of nodeRequestAttributes(method, path)) {
        if (!(await this.allowed(user, attrs))) return { allowed: false, code: 403, message: `Forbidden ${describe(attrs)}` };
      }
    } catch {
      const attrs = nodeRequestAttributes(method, path)[0]!;
      return { allowed: false, code: 500, message: `Authorization error ${describe(attrs)}` };
    }
    return { allowed: true, user };
  }
}
