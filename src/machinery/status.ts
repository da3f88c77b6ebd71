/**
 * API errors: a StatusError carries an upstream `Status` object, which is what
 * goes on the wire (HTTP status = Status.code). Constructors exist per reason,
 * with upstream's messages; predicates check the reason, then the code, so the
 * same predicates serve the server and the client (which rebuilds a StatusError
 * from a response body).
 */
import { fieldErrorBody, formatFieldErrors, type FieldError } from './field-errors.js';

export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number; selfLink?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A resource with its API group, for messages: `pods`, `deployments.apps`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind with its API group, for Invalid messages: `Pod`, `Deployment.apps`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

export const qualifiedResource = (gr: GroupResource): string => (gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`);
export const qualifiedKind = (gk: GroupKind): string => (gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`);

export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly status: Status;

  constructor(status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'> & Partial<Pick<Status, 'metadata'>>, options?: { cause?: unknown }) {
    super(status.message ?? status.reason ?? `status ${status.code}`, options);
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: status.metadata ?? {}, status: 'Failure', ...status };
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason {
    return this.status.reason ?? '';
  }

  /** Rebuild a StatusError from a response body (a client's view); a body that is not a Status keeps the code. */
  static fromResponse(code: number, body: unknown): StatusError {
    if (isStatusObject(body)) return new StatusError({ ...body, code: body.code || code });
    return new StatusError({ code, reason: reasonForCode(code), message: `the server responded with the status code ${code}` });
  }
}

function isStatusObject(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

/** The reason upstream's client assumes for a bare HTTP code. */
export function reasonForCode(code: number): StatusReason {
  switch (code) {
    case 400: return 'BadRequest';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 405: return 'MethodNotAllowed';
    case 406: return 'NotAcceptable';
    case 409: return 'Conflict';
    case 410: return 'Gone';
    case 413: return 'RequestEntityTooLarge';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'Invalid';
    case 429: return 'TooManyRequests';
    case 500: return 'InternalError';
    case 503: return 'ServiceUnavailable';
    case 504: return 'Timeout';
    default: return '';
  }
}

const details = (gr: GroupResource, name: string): StatusDetails => ({ name, group: gr.group, kind: gr.resource });

export const notFound = (gr: GroupResource, name: string): StatusError =>
  new StatusError({ code: 404, reason: 'NotFound', message: `${qualifiedResource(gr)} "${name}" not found`, details: details(gr, name) });

export const alreadyExists = (gr: GroupResource, name: string): StatusError =>
  new StatusError({ code: 409, reason: 'AlreadyExists', message: `${qualifiedResource(gr)} "${name}" already exists`, details: details(gr, name) });

/** A stale resourceVersion: kubectl prints this message as is. */
export const conflict = (gr: GroupResource, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): StatusError =>
  new StatusError({
    code: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    details: details(gr, name),
  });

export const invalid = (gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError =>
  new StatusError({
    code: 422,
    reason: 'Invalid',
    message: `${qualifiedKind(gk)} "${name}" is invalid: ${formatFieldErrors(errors)}`,
    details: {
      name,
      group: gk.group,
      kind: gk.kind,
      causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
    },
  });

export const badRequest = (message: string): StatusError => new StatusError({ code: 400, reason: 'BadRequest', message });

export const unauthorized = (message = 'Unauthorized'): StatusError => new StatusError({ code: 401, reason: 'Unauthorized', message });

export const forbidden = (gr: GroupResource, name: string, message: string): StatusError =>
  new StatusError({
    code: 403,
    reason: 'Forbidden',
    message: `${qualifiedResource(gr)}${name === '' ? '' : ` "${name}"`} is forbidden: ${message}`,
    details: details(gr, name),
  });

/** The answer for a path or resource the server does not serve. */
export const resourceNotFound = (): StatusError =>
  new StatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });

export const methodNotAllowed = (): StatusError =>
  new StatusError({ code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', details: {} });

export const notAcceptable = (accepted: readonly string[]): StatusError =>
  new StatusError({ code: 406, reason: 'NotAcceptable', message: `only the following media types are accepted: ${accepted.join(', ')}` });

export const unsupportedMediaType = (contentType: string, accepted: readonly string[]): StatusError =>
  new StatusError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] },
  });

export const requestEntityTooLarge = (limit: number): StatusError =>
  new StatusError({ code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: limit is ${limit}` });

/** A watch or list from a compacted resourceVersion. */
export const expired = (message: string): StatusError => new StatusError({ code: 410, reason: 'Expired', message });

export const gone = (message: string): StatusError => new StatusError({ code: 410, reason: 'Gone', message });

export const tooManyRequests = (message: string, retryAfterSeconds: number): StatusError =>
  new StatusError({ code: 429, reason: 'TooManyRequests', message, details: { retryAfterSeconds } });

export const internalError = (cause?: unknown): StatusError =>
  new StatusError(
    { code: 500, reason: 'InternalError', message: 'Internal error occurred: an unexpected error happened; the server log has the details', details: { causes: [{ message: 'an unexpected error happened' }] } },
    { cause },
  );

export const serviceUnavailable = (message: string): StatusError => new StatusError({ code: 503, reason: 'ServiceUnavailable', message });

export const timeout = (message: string, retryAfterSeconds = 0): StatusError =>
  new StatusError({ code: 504, reason: 'Timeout', message, details: { retryAfterSeconds } });

const hasReason = (reason: StatusReason, code: number) => (e: unknown): boolean => {
  if (!(e instanceof StatusError)) return false;
  if (e.reason !== '') return e.reason === reason;
  return e.code === code;
};

export const isNotFound = hasReason('NotFound', 404);
export const isAlreadyExists = hasReason('AlreadyExists', 409);
export const isConflict = hasReason('Conflict', 409);
export const isInvalid = hasReason('Invalid', 422);
export const isBadRequest = hasReason('BadRequest', 400);
export const isForbidden = hasReason('Forbidden', 403);
export const isMethodNotAllowed = hasReason('MethodNotAllowed', 405);
export const isTooManyRequests = hasReason('TooManyRequests', 429);
/** 410: both Gone and Expired mean "start again from a fresh list". */
export const isResourceExpired = (e: unknown): boolean => e instanceof StatusError && (e.reason === 'Expired' || e.reason === 'Gone' || (e.reason === '' && e.code === 410));
export const isInternalError = hasReason('InternalError', 500);
