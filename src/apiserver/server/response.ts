/**
 * Writing responses: objects in the negotiated encoding (JSON, YAML or
 * Kubernetes protobuf), and errors as Status objects whose HTTP status is
 * their code, in the encoding the client's Accept header negotiates, as
 * upstream's ErrorNegotiated does. An error that is not a StatusError is a
 * bug: the client gets a plain 500 Status, the log gets the detail, and no
 * stack trace ever reaches the client.
 */
import { stringify as toYaml } from 'yaml';
import { encodeObject, hasProtobufEncoding } from '../../api/protobuf/envelope.js';
import { internalError, StatusError, type Status } from '../../machinery/status.js';
import { negotiateOutput } from '../endpoints/negotiation.js';
import { encodeJsonBytes } from './json-memo.js';
import { auditResponseObject } from '../audit/request-audit.js';
import type { RequestContext } from './context.js';

export interface Encoding {
  readonly encoding: 'json' | 'yaml' | 'protobuf';
  readonly contentType: string;
}

const JSON_ENCODING: Encoding = { encoding: 'json', contentType: 'application/json' };

/**
 * YAML as upstream's serializer writes it (JSON, then sigs.k8s.io/yaml's
 * JSONToYAML through go-yaml v2): keys sorted, sequences not indented under
 * their key, and strings YAML 1.1 would read as something else quoted
 * (timestamps, yes/no/on/off, 0x1F, 1:20), as `kubectl get -o yaml` prints.
 */
export function encodeGoYaml(value: unknown): string {
  return toYaml(value, { sortMapEntries: true, indentSeq: false, version: '1.1' });
}

/** An object (with apiVersion and kind, for protobuf) in the given encoding. */
export function encodeBody(value: unknown, encoding: Encoding): string | Buffer {
  if (encoding.encoding === 'protobuf') return encodeObject(value);
  return encoding.encoding === 'yaml' ? encodeGoYaml(value) : encodeJsonBytes(value);
}

function canEncodeProtobuf(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  return typeof apiVersion === 'string' && typeof kind === 'string' && hasProtobufEncoding(apiVersion, kind);
}

/** The encoding of an error answer: what Accept negotiates without transforms, else JSON. */
export function errorEncoding(ctx: RequestContext): Encoding {
  try {
    const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
    return format.encoding === 'protobuf' ? format : JSON_ENCODING;
  } catch {
    return JSON_ENCODING;
  }
}

export function writeObject(ctx: RequestContext, code: number, value: unknown, encoding: Encoding = JSON_ENCODING): void {
  // A kind upstream has no protobuf for (a custom resource) is answered in JSON,
  // the type protobuf-speaking clients list next.
  if (encoding.encoding === 'protobuf' && !canEncodeProtobuf(value)) encoding = JSON_ENCODING;
  auditResponseObject(ctx, code, value);
  const latency = ctx.latency;
  const serializeStart = latency === undefined ? 0n : process.hrtime.bigint();
  const body = encoding.encoding === 'json' && isPrettyPrint(ctx) ? JSON.stringify(value, null, 2) : encodeBody(value, encoding);
  const res = ctx.res;
  if (res.headersSent) return;
  writeWarnings(ctx);
  const writeStart = latency === undefined ? 0n : process.hrtime.bigint();
  latency?.add('serialize-response-object', writeStart - serializeStart);
  res.writeHead(code, {
    'content-type': encoding.contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-cache, private',
  });
  if (ctx.req.method === 'HEAD') res.end();
  else res.end(body);
  latency?.add('response-write', process.hrtime.bigint() - writeStart);
}

const GO_BOOLEANS: Readonly<Record<string, boolean>> = { 1: true, t: true, T: true, true: true, TRUE: true, True: true, 0: false, f: false, F: false, false: false, FALSE: false, False: false };

/**
 * Upstream's isPrettyPrint: JSON is indented when `?pretty` says so (a Go
 * boolean; one that does not parse is false), else when the client is curl,
 * Wget or a browser.
 */
export function isPrettyPrint(ctx: Pick<RequestContext, 'req' | 'query'>): boolean {
  const pretty = ctx.query.get('pretty');
  if (pretty !== null && pretty !== '') return GO_BOOLEANS[pretty] ?? false;
  const agent = ctx.req.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** Warning headers in upstream's form: `299 - "text"`. */
export function writeWarnings(ctx: RequestContext): void {
  if (ctx.warnings.length > 0 && !ctx.res.headersSent) {
    ctx.res.setHeader('warning', ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  }
}

export type ErrorLogger = (message: string, detail: Record<string, unknown>) => void;

/** Write any error as a Status; log what is not a StatusError (a bug or an outage). */
export function writeError(ctx: RequestContext, error: unknown, log: ErrorLogger): void {
  let status: StatusError;
  if (error instanceof StatusError) {
    status = error;
    if (status.code >= 500) log('request failed', { path: ctx.path, verb: ctx.info.verb, error: describe(error) });
  } else {
    log('internal error', { path: ctx.path, verb: ctx.info.verb, error: describe(error) });
    status = internalError(error);
  }
  if (ctx.res.headersSent) {
    // A stream already started (a watch): nothing more can be said on it.
    ctx.res.end();
    return;
  }
  if (status.status.details?.retryAfterSeconds !== undefined && status.status.details.retryAfterSeconds > 0) {
    ctx.res.setHeader('retry-after', String(status.status.details.retryAfterSeconds));
  }
  writeObject(ctx, status.code, statusBody(status.status), errorEncoding(ctx));
}

/**
 * A Status as upstream's encoder writes it: fields in the Go struct's order,
 * empty ones left out (every field of Status, StatusDetails and StatusCause is
 * omitempty except code).
 */
export function statusBody(status: Status): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: compact({ ...status.metadata }) };
  if (status.status !== undefined) body.status = status.status;
  if (nonEmpty(status.message)) body.message = status.message;
  if (nonEmpty(status.reason)) body.reason = status.reason;
  const d = status.details;
  if (d !== undefined) {
    const details = compact({
      name: d.name,
      group: d.group,
      kind: d.kind,
      uid: d.uid,
      causes: d.causes?.map((c) => compact({ reason: c.reason, message: c.message, field: c.field })),
      retryAfterSeconds: d.retryAfterSeconds,
    });
    if (Object.keys(details).length > 0) body.details = details;
  }
  body.code = status.code;
  return body;
}

function nonEmpty(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && value !== 0 && !(Array.isArray(value) && value.length === 0);
}

function compact(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (nonEmpty(value)) out[key] = value;
  return out;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause === undefined ? '' : ` (cause: ${describe(error.cause)})`;
    return `${error.stack ?? error.message}${cause}`;
  }
  return String(error);
}
