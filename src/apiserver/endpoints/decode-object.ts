/**
 * Turning a request body into the object a write handler stores: decoded from
 * JSON, YAML or Kubernetes protobuf, of the kind and
 * apiVersion the URL names (filled in when the
 * body leaves them out), with a metadata object, and decoded against the
 * kind's schema as upstream's typed decoder does (field-validation.ts):
 * unknown fields dropped, and reported as `?fieldValidation=` asks.
 */
import { ProtobufError } from '../../api/protobuf/codec.js';
import { decodeEnvelope, openEnvelope, splitApiVersion, type Envelope } from '../../api/protobuf/envelope.js';
import { goJsonShape } from '../../api/protobuf/go-json-shape.js';
import { isPlainObject, type KubeObject } from '../../machinery/meta.js';
import { badRequest } from '../../machinery/status.js';
import type { RequestContext } from '../server/context.js';
import { auditRequestObject } from '../audit/request-audit.js';
import { readBody } from './body.js';
import { addWarnings, decodeStrictDocument, parseFieldValidationParam, validateObjectFields, type WriteOptionsKind } from './field-validation.js';
import { negotiateInput } from './negotiation.js';

export interface ExpectedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * Read the body of a create (POST) or update (PUT). `options` names the
 * options kind whose `fieldValidation` a bad value is reported against.
 */
export async function readObject(ctx: RequestContext, expected: ExpectedKind, options: WriteOptionsKind = 'CreateOptions'): Promise<KubeObject> {
  const encoding = negotiateInput(ctx.req.headers['content-type'], { patch: false });
  const body = await readBody(ctx.req);
  const directive = parseFieldValidationParam(ctx.query, options);
  if (encoding === 'protobuf') {
    // As upstream: protobuf has no strict decoding, so fieldValidation has nothing to report.
    // The protobuf decoder already answers Go's JSON shape.
    const decoded = asKubeObject(decodeProtobufBody(body, expected), expected, { goShaped: true });
    auditRequestObject(ctx, decoded);
    return decoded;
  }
  const document = decodeStrictDocument(body, encoding === 'yaml' ? 'yaml' : 'json');
  checkTypeMeta(document.value, expected);
  const { value, warnings } = validateObjectFields(document, expected, directive);
  addWarnings(ctx, warnings);
  const object = asKubeObject(value, expected);
  auditRequestObject(ctx, object);
  return object;
}

/** The body is an object whose apiVersion and kind, when given, are the expected ones. */
export function checkTypeMeta(value: unknown, expected: ExpectedKind): asserts value is Record<string, unknown> {
  if (!isPlainObject(value)) throw badRequest('the request body must be an object');
  const expectedVersion = expected.group === '' ? expected.version : `${expected.group}/${expected.version}`;
  const apiVersion = value.apiVersion;
  const kind = value.kind;
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expectedVersion) {
    if (typeof apiVersion !== 'string') throw badRequest('apiVersion must be a string');
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expectedVersion})`);
  }
  if (kind !== undefined && kind !== '' && kind !== expected.kind) {
    if (typeof kind !== 'string') throw badRequest('kind must be a string');
    throw badRequest(`${kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: no kind "${kind}" is registered for version "${expectedVersion}" here`);
  }
}

/**
 * The decoded body (or patched object) as the object the write stores: the
 * URL's apiVersion and kind, a metadata object, and the JSON shape Go gives
 * the kind's struct (go-json-shape.ts) as upstream's typed decoding does,
 * e.g. an emptied `env: []` or `labels: {}` gone, `resources: {}` written.
 * Every create, update and patch (JSON, merge, strategic) comes through here.
 */
export function asKubeObject(value: unknown, expected: ExpectedKind, options: { goShaped?: boolean } = {}): KubeObject {
  checkTypeMeta(value, expected);
  const expectedVersion = expected.group === '' ? expected.version : `${expected.group}/${expected.version}`;
  const metadata = value.metadata ?? {};
  if (!isPlainObject(metadata)) throw badRequest(`${expected.kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: metadata must be an object`);
  for (const field of ['name', 'generateName', 'namespace', 'resourceVersion', 'uid'] as const) {
    const v = metadata[field];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw badRequest(`${expected.kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: metadata.${field} must be a string`);
    }
  }
  for (const field of ['labels', 'annotations'] as const) {
    const v = metadata[field];
    if (v === undefined || v === null) continue;
    if (!isPlainObject(v) || !allStrings(v)) {
      throw badRequest(`${expected.kind} in version "${expected.version}" cannot be handled as a ${expected.kind}: metadata.${field} must be a map of strings`);
    }
  }
  // Shaping writes a new object: the usual body, which names the URL's type and has metadata, needs no copy before it.
  const typed = value.kind === expected.kind && value.apiVersion === expectedVersion && value.metadata === metadata;
  const shaped = options.goShaped === true ? value : goJsonShape(typed ? value : { ...value, kind: expected.kind, apiVersion: expectedVersion, metadata }, expected);
  // Nor after it, when the new object has the type and metadata already (the copy would be the same, key for key).
  if (shaped !== value && shaped.apiVersion === expectedVersion && shaped.kind === expected.kind && shaped.metadata !== undefined && shaped.metadata !== null) return shaped as KubeObject;
  return { ...shaped, apiVersion: expectedVersion, kind: expected.kind, metadata: shaped.metadata ?? metadata } as KubeObject;
}

/** Whether every own enumerable value is a string (Object.values(o).every, without the array). */
function allStrings(o: Record<string, unknown>): boolean {
  for (const key in o) if (Object.hasOwn(o, key) && typeof o[key] !== 'string') return false;
  return true;
}

// ---- protobuf bodies ----
// Errors are 400s worded as upstream's transformDecodeError words them: before
// the envelope names a type, "the object provided is unrecognized (must be of
// type Namespace): <reason> (<the first bytes, in hex>)"; after, "Namespace in
// version "v1" cannot be handled as a Namespace: <reason>".

/** upstream's summarizeData: the body itself when it looks like JSON, else hex; 30 bytes at most. */
function summarize(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

/** A protobuf body as the JSON object upstream would read from it. */
export function decodeProtobufBody(body: Buffer, expected: ExpectedKind): Record<string, unknown> {
  let envelope: Envelope;
  try {
    envelope = openEnvelope(body);
  } catch (e: unknown) {
    if (!(e instanceof ProtobufError)) throw e;
    throw badRequest(`the object provided is unrecognized (must be of type ${expected.kind}): ${e.message} (${summarize(body)})`);
  }
  // An envelope without a type is read as the expected one (upstream's gvkWithDefaults).
  const expectedVersion = expected.group === '' ? expected.version : `${expected.group}/${expected.version}`;
  const typed: Envelope = {
    apiVersion: envelope.apiVersion === '' ? expectedVersion : envelope.apiVersion,
    kind: envelope.kind === '' ? expected.kind : envelope.kind,
    raw: envelope.raw,
  };
  // The same checks, and messages, as a JSON body's apiVersion and kind get.
  checkTypeMeta({ apiVersion: typed.apiVersion, kind: typed.kind }, expected);
  try {
    return decodeEnvelope(typed);
  } catch (e: unknown) {
    if (!(e instanceof ProtobufError)) throw e;
    const { version } = splitApiVersion(typed.apiVersion);
    throw badRequest(`${typed.kind} in version "${version}" cannot be handled as a ${expected.kind}: ${e.message}`);
  }
}
