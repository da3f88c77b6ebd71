/**
 * ControllerRevisions, the history DaemonSets and StatefulSets keep of their
 * pod templates (upstream's pkg/controller/history): each revision holds a
 * strategic merge patch that puts one template back (`{"spec":{"template":
 * {"$patch":"replace",…}}}`, which `kubectl rollout undo` applies as it is),
 * a revision number, and a name `<owner>-<hash>`.
 *
 * Everything here is pure: it computes revisions and decides which to keep;
 * revision-client.ts writes them.
 */
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { deepCopy, isPlainObject, type KubeObject, type OwnerReference } from '../../machinery/meta.js';
import { goSortedJson } from './go-json.js';
import { encodeHash, fnv32 } from './hash.js';

export type ControllerRevisionObject = KubeObject & ControllerRevision;

/** The label holding the hash of a revision's data (upstream's history.ControllerRevisionHashLabel). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

/** The label a DaemonSet's or StatefulSet's pods (and a DaemonSet's revisions) carry their revision in (apps/v1 ControllerRevisionHashLabelKey). */
export const POD_REVISION_LABEL = 'controller-revision-hash';

/** A revision name: `<prefix>-<hash>`, the prefix cut to 223 bytes so the name fits in 253. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** The bytes upstream hashes and compares: the revision's data as Go writes it. */
export function revisionDataBytes(revision: { readonly data?: unknown }): string {
  return revision.data === undefined ? '' : goSortedJson(revision.data);
}

/** Upstream's HashControllerRevision: FNV-1 of the data, then of the collision count when there is one. */
export function hashControllerRevision(revision: { readonly data?: unknown }, collisionCount?: number): string {
  const parts = [revisionDataBytes(revision)];
  if (collisionCount !== undefined) parts.push(String(collisionCount));
  return encodeHash(fnv32(...parts));
}

/**
 * The patch that restores an owner's pod template: the template with
 * `$patch: replace`, under spec (upstream's getPatch of both controllers).
 */
export function templatePatch(owner: { readonly spec?: { readonly template?: unknown } | undefined }): Record<string, unknown> {
  const template = isPlainObject(owner.spec?.template) ? deepCopy(owner.spec.template) : {};
  // Keys in Go's order, so that the API server serves the bytes kubectl computes (rollout undo compares them).
  return JSON.parse(goSortedJson({ spec: { template: { ...template, $patch: 'replace' } } })) as Record<string, unknown>;
}

/** The template a revision restores (its data's spec.template without the directive), or undefined when it holds none. */
export function revisionTemplate(revision: ControllerRevisionObject): Record<string, unknown> | undefined {
  const data = revision.data as unknown;
  if (!isPlainObject(data) || !isPlainObject(data.spec) || !isPlainObject(data.spec.template)) return undefined;
  const template = deepCopy(data.spec.template);
  delete template.$patch;
  return template;
}

/**
 * The owner as the revision would make it (upstream's ApplyRevision): a copy
 * with spec.template replaced by the revision's.
 */
export function applyRevision<T extends { spec?: { template?: unknown } | undefined }>(owner: T, revision: ControllerRevisionObject): T {
  const copy = deepCopy(owner);
  const template = revisionTemplate(revision);
  if (template !== undefined) (copy.spec ??= {}).template = template;
  return copy;
}

/** True when the revision holds exactly this owner's current template. */
export function revisionMatchesTemplate(owner: { readonly spec?: { readonly template?: unknown } | undefined }, revision: ControllerRevisionObject): boolean {
  return goSortedJson(templatePatch(owner)) === revisionDataBytes(revision);
}

export interface NewRevisionOptions {
  readonly owner: KubeObject;
  readonly controllerRef: OwnerReference;
  readonly templateLabels: Readonly<Record<string, string>> | undefined;
  readonly data: Record<string, unknown>;
  readonly revision: number;
  readonly collisionCount: number;
  /** Annotations copied onto the revision (a StatefulSet's own). */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}

/** Upstream's NewControllerRevision: the template's labels plus the hash label, named `<owner>-<hash>`. */
export function newControllerRevision(options: NewRevisionOptions): ControllerRevisionObject {
  const revision: ControllerRevisionObject = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      ...(options.owner.metadata.namespace !== undefined ? { namespace: options.owner.metadata.namespace } : {}),
      labels: { ...(options.templateLabels ?? {}) },
      ownerReferences: [{ ...options.controllerRef }],
    },
    data: options.data,
    revision: options.revision,
  };
  if (options.annotations !== undefined && Object.keys(options.annotations).length > 0) revision.metadata.annotations = { ...options.annotations };
  const hash = hashControllerRevision(revision, options.collisionCount);
  revision.metadata.name = controllerRevisionName(options.owner.metadata.name ?? '', hash);
  revision.metadata.labels![CONTROLLER_REVISION_HASH_LABEL] = hash;
  return revision;
}

/** Sorted by revision number, then creation time, then name (upstream's byRevision); returns a new array. */
export function sortControllerRevisions<T extends ControllerRevisionObject>(revisions: readonly T[]): T[] {
  return [...revisions].sort((a, b) => {
    if (a.revision !== b.revision) return a.revision - b.revision;
    const at = a.metadata.creationTimestamp ?? '';
    const bt = b.metadata.creationTimestamp ?? '';
    if (at !== bt) return at < bt ? -1 : 1;
    const an = a.metadata.name ?? '';
    const bn = b.metadata.name ?? '';
    return an < bn ? -1 : an > bn ? 1 : 0;
  });
}

/** Upstream's EqualRevision: the same data (hash labels differing rule it out first). */
export function equalRevision(a: ControllerRevisionObject, b: ControllerRevisionObject): boolean {
  const ah = a.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const bh = b.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  // Upstream compares the labels only when both parse as numbers, which safe-encoded hashes rarely do: the data decides.
  if (ah !== undefined && bh !== undefined && /^\d+$/.test(ah) && /^\d+$/.test(bh) && ah !== bh) return false;
  return revisionDataBytes(a) === revisionDataBytes(b);
}

export function findEqualRevisions<T extends ControllerRevisionObject>(revisions: readonly T[], needle: ControllerRevisionObject): T[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/** One more than the highest revision number (1 for none). */
export function nextRevision(revisions: readonly ControllerRevisionObject[]): number {
  return revisions.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
}

/**
 * Which revisions to delete to keep at most `limit` that are not live, the
 * oldest first (upstream's truncateHistory). Live revisions are never
 * deleted and do not count against the limit.
 */
export function revisionsBeyondLimit<T extends ControllerRevisionObject>(revisions: readonly T[], live: ReadonlySet<string>, limit: number): T[] {
  const history = sortControllerRevisions(revisions).filter((r) => !live.has(r.metadata.name ?? ''));
  return history.length <= limit ? [] : history.slice(0, history.length - Math.max(0, limit));
}
