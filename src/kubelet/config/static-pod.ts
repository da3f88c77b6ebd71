/**
 * A static pod manifest turned into the pod the kubelet runs, as upstream's
 * file source does (pkg/kubelet/config/common.go applyDefaults): the name
 * gets `-<node name>` appended, the namespace defaults to `default`,
 * spec.nodeName is this node, the uid (when the manifest gives none) is an MD5
 * over the node name, the file path and the manifest, and the annotations say
 * where it came from (kubernetes.io/config.source=file) and which version it
 * is (kubernetes.io/config.hash = the uid). The pod gets the API's defaults
 * and must pass the API's validation of a new pod, as upstream checks.
 */
import { createHash } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { defaultPod } from '../../api/core/v1/defaults.js';
import { validatePod } from '../../api/core/v1/validation.js';
import { formatFieldErrors } from '../../machinery/field-errors.js';
import { isPlainObject } from '../../machinery/meta.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION, type Pod } from '../types.js';

export class StaticPodError extends Error {
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${path}: ${message}`, options);
    this.name = 'StaticPodError';
  }
}

/** Object keys sorted at every level, so that the hash does not depend on the order a manifest lists fields in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Parses one manifest (YAML or JSON, one Pod). */
export function parseManifest(path: string, text: string): Pod {
  let docs: unknown[];
  try {
    const parsed = parseAllDocuments(text);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    for (const d of list) if (d.errors.length > 0) throw d.errors[0]!;
    docs = list.map((d) => d.toJS() as unknown).filter((d) => d !== null && d !== undefined);
  } catch (e: unknown) {
    throw new StaticPodError(path, `cannot parse the manifest: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (docs.length !== 1) throw new StaticPodError(path, `a static pod manifest holds exactly one Pod, found ${docs.length} documents`);
  const doc = docs[0];
  if (!isPlainObject(doc)) throw new StaticPodError(path, 'the manifest is not an object');
  if (doc['kind'] !== 'Pod' || (doc['apiVersion'] !== 'v1' && doc['apiVersion'] !== undefined)) {
    throw new StaticPodError(path, `the manifest must be a v1 Pod, not ${String(doc['apiVersion'] ?? '')} ${String(doc['kind'] ?? '(no kind)')}`);
  }
  const pod = doc as unknown as Pod;
  if (!isPlainObject(pod.metadata)) throw new StaticPodError(path, 'the manifest has no metadata');
  return pod;
}

export interface StaticPodDefaults {
  readonly nodeName: string;
  /** The manifest's path (part of the uid, as upstream's `file:<path>`). */
  readonly path: string;
  /** kubernetes.io/config.seen, RFC 3339 with nanoseconds. */
  readonly seen: string;
}

/** The pod the kubelet runs for a parsed manifest; throws a StaticPodError when it is not a valid pod. */
export function staticPodFromManifest(manifest: Pod, defaults: StaticPodDefaults): Pod {
  const pod = structuredClone(manifest);
  pod.apiVersion = 'v1';
  pod.kind = 'Pod';
  const meta = pod.metadata;
  if ((meta.name ?? '') === '') throw new StaticPodError(defaults.path, 'metadata.name: Required value: name or generateName is required');
  if ((meta.uid ?? '') === '') {
    const hash = createHash('md5');
    hash.update(`host:${defaults.nodeName}`);
    hash.update(`file:${defaults.path}`);
    hash.update(canonicalJson(manifest));
    meta.uid = hash.digest('hex');
  }
  meta.name = `${meta.name}-${defaults.nodeName.toLowerCase()}`;
  if ((meta.namespace ?? '') === '') meta.namespace = 'default';
  pod.spec = { ...(pod.spec ?? { containers: [] }), nodeName: defaults.nodeName };
  meta.annotations = { ...(meta.annotations ?? {}), [CONFIG_HASH_ANNOTATION]: meta.uid!, [CONFIG_SOURCE_ANNOTATION]: 'file', [CONFIG_SEEN_ANNOTATION]: defaults.seen };
  defaultPod(pod);
  const errors = validatePod(pod);
  if (errors.length > 0) throw new StaticPodError(defaults.path, `invalid pod: ${formatFieldErrors(errors)}`);
  return { ...pod, status: { phase: 'Pending' } };
}
