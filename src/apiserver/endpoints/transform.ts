/**
 * The shapes a client may ask an object or a list to be returned in: as is, as
 * a Table (server-side printing for `kubectl get`) or as PartialObjectMetadata.
 */
import type { KubeList, KubeObject } from '../../machinery/meta.js';
import type { Table, TableConvertor, TableRow } from '../../machinery/table.js';
import { badRequest, StatusError } from '../../machinery/status.js';
import { defaultTable } from '../registry/printing/default-table.js';
import type { OutputFormat } from './negotiation.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? 'Metadata';
  if (value === '') return 'Metadata';
  if (value !== 'None' && value !== 'Metadata' && value !== 'Object') {
    // Upstream's optionsForTransform: ValidateTableOptions' one error, as a 400.
    throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`);
  }
  return value;
}

/** The version of meta.k8s.io a transform answers in: the one the client asked for (v1 or v1beta1). */
const META_V1 = 'meta.k8s.io/v1';

export function partialObjectMetadata(object: KubeObject, apiVersion = META_V1): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata };
}

function row(object: KubeObject, convertor: TableConvertor<KubeObject>, now: Date, include: IncludeObject, apiVersion: string): TableRow {
  const cells = convertor.cells(object, now);
  if (include === 'None') return { cells };
  return { cells, object: include === 'Object' ? object : partialObjectMetadata(object, apiVersion) };
}

export function toTable(
  objects: readonly KubeObject[],
  meta: KubeList['metadata'],
  convertor: TableConvertor<KubeObject> | undefined,
  options: { include: IncludeObject; noHeaders?: boolean; apiVersion?: string },
): Table {
  const apiVersion = (options.apiVersion ?? META_V1) as Table['apiVersion'];
  const c = convertor ?? (defaultTable as TableConvertor<KubeObject>);
  const now = new Date();
  return {
    kind: 'Table',
    apiVersion,
    metadata: meta,
    columnDefinitions: options.noHeaders === true ? [] : [...c.columns],
    rows: objects.map((o) => row(o, c, now, options.include, apiVersion)),
  };
}

/** One object in the negotiated shape. */
export function shapeObject(object: KubeObject, format: OutputFormat, convertor: TableConvertor<KubeObject> | undefined, query: URLSearchParams): unknown {
  if (format.shape === 'Table') {
    return toTable([object], { resourceVersion: object.metadata.resourceVersion ?? '' }, convertor, { include: parseIncludeObject(query), ...apiVersionOf(format) });
  }
  if (format.shape === 'PartialObjectMetadata') {
    if (format.list === true) throw notAcceptableTransform(`you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(object.apiVersion, object.kind)})`);
    return partialObjectMetadata(object, format.apiVersion);
  }
  return object;
}

/** A list in the negotiated shape. */
export function shapeList(list: KubeList, format: OutputFormat, convertor: TableConvertor<KubeObject> | undefined, query: URLSearchParams): unknown {
  if (format.shape === 'Table') return toTable(list.items, list.metadata, convertor, { include: parseIncludeObject(query), ...apiVersionOf(format) });
  if (format.shape === 'PartialObjectMetadata') {
    if (format.list !== true) throw notAcceptableTransform(`you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(list.apiVersion, list.kind)})`);
    const apiVersion = format.apiVersion ?? META_V1;
    return { kind: 'PartialObjectMetadataList', apiVersion, metadata: list.metadata, items: list.items.map((o) => partialObjectMetadata(o, apiVersion)) };
  }
  return list;
}

/** Upstream's 406 when the requested transform does not fit the object (errNotAcceptable of the transform). */
function notAcceptableTransform(message: string): StatusError {
  return new StatusError({ code: 406, reason: 'NotAcceptable', message });
}

/**
 * The Go type upstream's message prints (`%T` of the internal object): the
 * internal package of the group, e.g. *core.ConfigMapList, *apps.Deployment.
 */
function goTypeName(apiVersion: string | undefined, kind: string | undefined): string {
  const slash = (apiVersion ?? '').indexOf('/');
  const group = slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
  const pkg = group === '' || group === 'events.k8s.io' ? 'core' : group === 'internal.apiserver.k8s.io' ? 'apiserverinternal' : group.split('.')[0];
  return `*${pkg}.${kind ?? ''}`;
}

function apiVersionOf(format: OutputFormat): { apiVersion?: string } {
  return format.apiVersion !== undefined ? { apiVersion: format.apiVersion } : {};
}
