/**
 * The handlers' side of admission (see admission/interfaces.ts): build the
 * attributes of a request and run the chain at the right moments, counting
 * the time under the `admission` stage of the audit log's latency annotations.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { AdmissionAttributes, Operation } from '../admission/interfaces.js';
import { addAuditAnnotation } from '../audit/request-audit.js';
import type { RequestContext } from '../server/context.js';
import type { Target } from './target.js';

const NOBODY = { name: '', groups: [] as string[] };

type KindAndResource = Pick<AdmissionAttributes, 'kind' | 'resource'>;
/** The kind and resource of a target as admission names them, made once per served resource (and subresource kind). */
const namesOf = new WeakMap<object, WeakMap<object, KindAndResource>>();

function kindAndResource(t: Target): KindAndResource {
  const kind = t.subresource?.kind ?? t.resource;
  let byKind = namesOf.get(t.resource);
  if (byKind === undefined) namesOf.set(t.resource, (byKind = new WeakMap()));
  let names = byKind.get(kind);
  if (names === undefined) {
    names = {
      kind: { group: kind.group, version: kind.version, kind: kind.kind },
      resource: { group: t.resource.group, version: t.resource.version, resource: t.resource.resource },
    };
    byKind.set(kind, names);
  }
  return names;
}

/** One request as admission sees it; warnings and audit annotations go to the request's context. */
class RequestAttributes implements AdmissionAttributes {
  readonly kind: AdmissionAttributes['kind'];
  readonly resource: AdmissionAttributes['resource'];
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly userInfo: AdmissionAttributes['userInfo'];

  constructor(
    private readonly ctx: RequestContext,
    t: Target,
    readonly operation: Operation,
    readonly object: KubeObject | undefined,
    readonly oldObject: KubeObject | undefined,
    readonly dryRun: boolean,
  ) {
    const names = kindAndResource(t);
    this.kind = names.kind;
    this.resource = names.resource;
    this.subresource = t.subresource?.name ?? '';
    this.namespace = t.namespace;
    this.name = t.name !== '' ? t.name : (object?.metadata.name ?? '');
    this.userInfo = ctx.user ?? NOBODY;
  }

  addWarning(text: string): void {
    this.ctx.warnings.push(text);
  }

  addAuditAnnotation(key: string, value: string): void {
    addAuditAnnotation(this.ctx, key, value);
  }
}

export function admissionAttributes(
  ctx: RequestContext,
  t: Target,
  operation: Operation,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  dryRun: boolean,
): AdmissionAttributes {
  return new RequestAttributes(ctx, t, operation, object, oldObject, dryRun);
}

/** Run `work` timed under the audit log's `admission` stage when the request is timed; a synchronous failure as a rejection. */
function timed(ctx: RequestContext, work: () => Promise<void>): Promise<void> {
  if (ctx.latency !== undefined) return ctx.latency.time('admission', work);
  try {
    return work();
  } catch (e: unknown) {
    return Promise.reject(e);
  }
}

/** Mutating admission of an object about to be created or updated (changes `object` in place); undefined without admission. */
export function admitMutating(ctx: RequestContext, t: Target, operation: 'CREATE' | 'UPDATE', object: KubeObject, old: KubeObject | undefined, dryRun: boolean): Promise<void> | undefined {
  const chain = t.admission;
  if (chain === undefined) return undefined;
  return timed(ctx, () => chain.admit(admissionAttributes(ctx, t, operation, object, old, dryRun)));
}

/** The store's validateAdmission hook for creates and updates: validating admission once the strategy has prepared and validated. */
export function validatingHook(ctx: RequestContext, t: Target, dryRun: boolean): ((object: KubeObject, old: KubeObject | undefined) => Promise<void>) | undefined {
  const chain = t.admission;
  if (chain === undefined) return undefined;
  return (object, old) => timed(ctx, () => chain.validate(admissionAttributes(ctx, t, old === undefined ? 'CREATE' : 'UPDATE', object, old, dryRun)));
}

/** Validating admission of a delete, with the object as stored. */
export function deletionHook(ctx: RequestContext, t: Target, dryRun: boolean): ((current: KubeObject) => Promise<void>) | undefined {
  const chain = t.admission;
  if (chain === undefined) return undefined;
  return (current) =>
    timed(ctx, () => chain.validate(admissionAttributes(ctx, { ...t, name: current.metadata.name ?? t.name, namespace: current.metadata.namespace ?? t.namespace }, 'DELETE', undefined, current, dryRun)));
}
