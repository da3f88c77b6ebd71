/**
 * AdmissionReview v1 (admission.k8s.io/v1): the request k8ts sends a webhook
 * and the checks on its response, as upstream's request.go does: the response
 * must be an admission.k8s.io/v1 AdmissionReview with the request's uid, and a
 * patch only from a mutating webhook, with patchType JSONPatch.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { Status } from '../../../../machinery/status.js';
import type { AdmissionAttributes } from '../../interfaces.js';

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind: { group: string; version: string; kind: string };
  requestResource: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> };
  object: KubeObject | null;
  oldObject: KubeObject | null;
  dryRun: boolean;
  options: Record<string, unknown> | null;
}

export interface AdmissionReviewRequest {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request: AdmissionRequest;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Partial<Status>;
  patch?: string;
  patchType?: string;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

const OPTIONS_KIND: Record<string, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** The AdmissionReview of one request (a fresh uid each call, as upstream). */
export function newAdmissionReview(attributes: AdmissionAttributes): AdmissionReviewRequest {
  const kind = { ...attributes.kind };
  const resource = { ...attributes.resource };
  const user = attributes.userInfo;
  const optionsKind = OPTIONS_KIND[attributes.operation];
  const options = attributes.options !== undefined ? { ...attributes.options } : optionsKind !== undefined ? { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' } : null;
  if (options !== null && optionsKind !== undefined) {
    options.kind ??= optionsKind;
    options.apiVersion ??= 'meta.k8s.io/v1';
  }
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind,
      resource,
      ...(attributes.subresource !== '' ? { subResource: attributes.subresource } : {}),
      requestKind: { ...kind },
      requestResource: { ...resource },
      ...(attributes.subresource !== '' ? { requestSubResource: attributes.subresource } : {}),
      ...(attributes.name !== '' ? { name: attributes.name } : {}),
      ...(attributes.namespace !== '' ? { namespace: attributes.namespace } : {}),
      operation: attributes.operation,
      userInfo: {
        username: user.name,
        ...(user.uid !== undefined && user.uid !== '' ? { uid: user.uid } : {}),
        groups: [...user.groups],
        ...(user.extra !== undefined ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}),
      },
      object: attributes.object !== undefined ? withTypeMeta(attributes.object, attributes) : null,
      oldObject: attributes.oldObject !== undefined ? withTypeMeta(attributes.oldObject, attributes) : null,
      dryRun: attributes.dryRun,
      options,
    },
  };
}

/** Objects go out with the served kind's apiVersion and kind (internal forms may lack them). */
function withTypeMeta(object: KubeObject, attributes: AdmissionAttributes): KubeObject {
  const apiVersion = attributes.kind.group === '' ? attributes.kind.version : `${attributes.kind.group}/${attributes.kind.version}`;
  if (object.apiVersion !== undefined && object.kind !== undefined) return object;
  return { ...object, apiVersion: object.apiVersion ?? apiVersion, kind: object.kind ?? attributes.kind.kind };
}

export interface ResponseCheck {
  readonly uid: string;
  readonly mutating: boolean;
}

/** The response's `response`, or an Error saying what is wrong with it (upstream's wording). */
export function verifyAdmissionResponse(body: unknown, check: ResponseCheck): AdmissionResponse {
  if (typeof body !== 'object' || body === null) throw new Error('expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview');
  const review = body as { apiVersion?: unknown; kind?: unknown; response?: unknown };
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
    throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkText(review.apiVersion, review.kind)}`);
  }
  if (typeof review.response !== 'object' || review.response === null) throw new Error('webhook response was absent');
  const response = review.response as Partial<AdmissionResponse> & Record<string, unknown>;
  if (response.uid !== check.uid) throw new Error(`expected response.uid="${check.uid}", got "${String(response.uid ?? '')}"`);
  const hasPatch = typeof response.patch === 'string' && response.patch !== '';
  if (!check.mutating && hasPatch) throw new Error('validating webhooks may not return patches');
  if (!check.mutating && response.patchType !== undefined && response.patchType !== null) throw new Error('validating webhooks may not return response.patchType');
  if (check.mutating && hasPatch && (response.patchType === undefined || response.patchType === null)) throw new Error('webhook returned response.patch but not response.patchType');
  if (check.mutating && response.patchType !== undefined && response.patchType !== null && response.patchType !== 'JSONPatch') {
    throw new Error(`webhook returned invalid response.patchType of "${String(response.patchType)}"`);
  }
  return {
    uid: check.uid,
    allowed: response.allowed === true,
    ...(isRecord(response.status) ? { status: response.status as Partial<Status> } : {}),
    ...(hasPatch ? { patch: response.patch as string, patchType: 'JSONPatch' } : {}),
    ...(isRecord(response.auditAnnotations) ? { auditAnnotations: stringRecord(response.auditAnnotations) } : {}),
    ...(Array.isArray(response.warnings) ? { warnings: response.warnings.filter((w): w is string => typeof w === 'string') } : {}),
  };
}

function gvkText(apiVersion: unknown, kind: unknown): string {
  const gv = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = gv.indexOf('/');
  const group = slash < 0 ? '' : gv.slice(0, slash);
  const version = slash < 0 ? gv : gv.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringRecord(v: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
