/**
 * The pod fields the downward API exposes by field path, as upstream's
 * pkg/fieldpath does: metadata.name, metadata.namespace, metadata.uid,
 * metadata.labels and metadata.annotations (all of them, one `key="value"`
 * line each in key order, values quoted as Go's %q), and one label or
 * annotation by subscript (`metadata.labels['app']`; a missing key gives "").
 * Env vars add a few more (spec.nodeName, status.podIP, …): env/env-resolver.ts.
 */
import { goQuote } from '../../machinery/validation/go-text.js';
import { isQualifiedName } from '../../machinery/validation/names.js';
import type { Pod } from '../types.js';

/** `metadata.labels['app']` → { path: 'metadata.labels', subscript: 'app' }; undefined without a subscript. */
export function splitSubscriptedPath(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const open = inner.indexOf("['");
  if (open <= 0) return undefined;
  return { path: inner.slice(0, open), subscript: inner.slice(open + 2) };
}

/** A map as upstream's fieldpath.FormatMap writes it: sorted `key="value"` lines. */
export function formatMap(map: Readonly<Record<string, string>> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${goQuote(map?.[key] ?? '')}`)
    .join('\n');
}

/** The value of a metadata field path; throws upstream's message for a path it does not support. */
export function extractFieldPathAsString(pod: Pod, fieldPath: string): string {
  const { metadata } = pod;
  const subscripted = splitSubscriptedPath(fieldPath);
  if (subscripted !== undefined) {
    const { path, subscript } = subscripted;
    if (path === 'metadata.annotations' || path === 'metadata.labels') {
      const key = path === 'metadata.annotations' ? subscript.toLowerCase() : subscript;
      const errors = isQualifiedName(key);
      if (errors.length > 0) throw new Error(`invalid key subscript in ${fieldPath}: ${errors.join(';')}`);
      const map = path === 'metadata.annotations' ? metadata.annotations : metadata.labels;
      return map?.[subscript] ?? '';
    }
    throw new Error(`fieldPath ${goQuote(fieldPath)} does not support subscript`);
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(metadata.annotations);
    case 'metadata.labels':
      return formatMap(metadata.labels);
    case 'metadata.name':
      return metadata.name ?? '';
    case 'metadata.namespace':
      return metadata.namespace ?? '';
    case 'metadata.uid':
      return metadata.uid ?? '';
    default:
      throw new Error(`unsupported fieldPath: ${fieldPath}`);
  }
}
