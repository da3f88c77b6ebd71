/**
 * Content negotiation: which media type a response is written in (Accept) and
 * how a request body is read (Content-Type), as upstream negotiates them.
 */
import { PROTOBUF_MEDIA_TYPE } from '../../api/protobuf/envelope.js';
import { notAcceptable, unsupportedMediaType } from '../../machinery/status.js';

export type OutputShape = 'object' | 'Table' | 'PartialObjectMetadata';

export interface OutputFormat {
  readonly encoding: 'json' | 'yaml' | 'protobuf';
  readonly shape: OutputShape;
  /** The Content-Type to answer with. */
  readonly contentType: string;
  /** For PartialObjectMetadata: whether the client asked for the list kind (PartialObjectMetadataList). */
  readonly list?: boolean;
  /** For Table and PartialObjectMetadata: the apiVersion asked for (meta.k8s.io/v1 or meta.k8s.io/v1beta1). */
  readonly apiVersion?: string;
}

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
}

export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mime, ...paramTexts] = part.split(';').map((s) => s.trim());
    if (mime === undefined || mime === '') continue;
    const [type, subtype] = mime.toLowerCase().split('/');
    const params = new Map<string, string>();
    for (const p of paramTexts) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"|"$/g, ''));
    }
    if (params.get('q') === '0') continue;
    ranges.push({ type: type ?? '', subtype: subtype ?? '', params });
  }
  return ranges;
}

const JSON_OUTPUT: OutputFormat = { encoding: 'json', shape: 'object', contentType: 'application/json' };
const YAML_OUTPUT: OutputFormat = { encoding: 'yaml', shape: 'object', contentType: 'application/yaml' };
const PROTOBUF_OUTPUT: OutputFormat = { encoding: 'protobuf', shape: 'object', contentType: PROTOBUF_MEDIA_TYPE };
export const SERVED_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE];

const PROTOBUF_SUBTYPE = 'vnd.kubernetes.protobuf';

function encodingOf(subtype: string): OutputFormat['encoding'] {
  return subtype === 'yaml' ? 'yaml' : subtype === PROTOBUF_SUBTYPE ? 'protobuf' : 'json';
}

/**
 * The format of a response, in the order the client lists its choices.
 * `as=Table` and `as=PartialObjectMetadata(List)` are honoured where `transforms` allows them:
 * as upstream's AllowsMediaTypeTransform, a Table only in JSON or YAML (Table has no
 * protobuf message), PartialObjectMetadata in any of the three. The Content-Type
 * is the bare media type even then: upstream's transformResponseObject writes
 * serializer.MediaType (listGVKInContentType false).
 */
export function negotiateOutput(accept: string | undefined, options: { transforms: boolean }): OutputFormat {
  // The usual header is compared rather than looked up: see negotiateInput.
  if (accept === undefined || accept === 'application/json') return JSON_OUTPUT;
  // Clients send a handful of Accept headers over and over: the plain answers are kept per header.
  const known = (options.transforms ? plainWithTransforms : plainWithoutTransforms).get(accept);
  if (known !== undefined) return known;
  const format = negotiate(accept, options);
  if (format === JSON_OUTPUT || format === YAML_OUTPUT || format === PROTOBUF_OUTPUT) {
    const memo = options.transforms ? plainWithTransforms : plainWithoutTransforms;
    if (memo.size >= MAX_MEMOISED_ACCEPT) memo.clear();
    memo.set(accept, format);
  }
  return format;
}

/** Accept headers whose answer is one of the constant formats, by whether transforms are served. */
const plainWithTransforms = new Map<string, OutputFormat>();
const plainWithoutTransforms = new Map<string, OutputFormat>();
const MAX_MEMOISED_ACCEPT = 256;

function negotiate(accept: string, options: { transforms: boolean }): OutputFormat {
  const ranges = parseMediaRanges(accept);
  if (ranges.length === 0) return JSON_OUTPUT;
  for (const r of ranges) {
    const as = r.params.get('as');
    if (as !== undefined) {
      if (!options.transforms || r.params.get('g') !== 'meta.k8s.io') continue;
      const v = r.params.get('v');
      if (r.type !== 'application' || (r.subtype !== 'json' && r.subtype !== 'yaml' && r.subtype !== PROTOBUF_SUBTYPE)) continue;
      if (as === 'Table' && (v === 'v1' || v === 'v1beta1') && r.subtype !== PROTOBUF_SUBTYPE) {
        return { encoding: encodingOf(r.subtype), shape: 'Table', contentType: `application/${r.subtype}`, apiVersion: `meta.k8s.io/${v}` };
      }
      if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && (v === 'v1' || v === 'v1beta1')) {
        return { encoding: encodingOf(r.subtype), shape: 'PartialObjectMetadata', contentType: `application/${r.subtype}`, list: as === 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${v}` };
      }
      continue;
    }
    if (r.type === 'application' && r.subtype === 'json') return JSON_OUTPUT;
    if (r.type === 'application' && r.subtype === 'yaml') return YAML_OUTPUT;
    if (r.type === 'application' && r.subtype === PROTOBUF_SUBTYPE) return PROTOBUF_OUTPUT;
    if ((r.type === '*' && r.subtype === '*') || (r.type === 'application' && r.subtype === '*')) return JSON_OUTPUT;
  }
  throw notAcceptable(SERVED_MEDIA_TYPES);
}

export type BodyType = 'json' | 'yaml' | 'protobuf' | 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply';

const CREATE_TYPES: Record<string, BodyType> = { 'application/json': 'json', 'application/yaml': 'yaml', [PROTOBUF_MEDIA_TYPE]: 'protobuf' };
/** Patch media types in upstream's order (strategic-merge.ts takes the strategic one back for kinds without patch metadata). */
export const PATCH_TYPES: Readonly<Record<string, BodyType>> = {
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
  'application/apply-patch+yaml': 'apply',
};

/** How to read a request body; 415 for anything we do not read. */
export function negotiateInput(contentType: string | undefined, options: { patch: boolean }): BodyType {
  // The usual header, compared rather than looked up: Node gives HTTP/2 header values as external
  // strings, and one used as a property or Map key costs about 1 µs (V8 internalizes it), `===` nothing.
  if (contentType === 'application/json' && !options.patch) return 'json';
  const table = options.patch ? PATCH_TYPES : CREATE_TYPES;
  // Else the header is usually exactly a media type of the table (`application/merge-patch+json`).
  if (contentType !== undefined && Object.hasOwn(table, contentType)) return table[contentType]!;
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime === '' && !options.patch) return 'json';
  const type = table[mime];
  if (type === undefined) throw unsupportedMediaType(mime, Object.keys(table));
  return type;
}
