/**
 * Several versions of one kind, served from one stored object: every served
 * version converts to and from one internal form (upstream's "hub"), and the
 * object is stored as one chosen version. A request in version A reads an
 * object stored as S through S → internal → A; a write goes A → internal
 * (defaults, validation and the strategy see the internal form) → S.
 *
 * Nothing here knows about a particular kind: built-in kinds (Event in core/v1
 * and events.k8s.io/v1) register hand-written conversions, and a
 * CustomResourceDefinition with several versions can register its versions the
 * same way (see `noneConversion` for upstream's `strategy: None`).
 *
 * The internal form is a plain object without apiVersion and kind (upstream's
 * internal types have no TypeMeta). Conversions never mutate their argument.
 */
import type { KubeObject } from '../../machinery/meta.js';
import { groupVersionString, type GroupVersionKind } from '../scheme.js';

/** An object in the internal form: metadata and fields, no apiVersion or kind. */
export type InternalObject = KubeObject;

/** One version of a kind and how its objects become the internal form and back. */
export interface VersionConversion {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** An object of this version → the internal form. */
  toInternal(object: KubeObject): InternalObject;
  /** The internal form → an object of this version, with its apiVersion and kind. */
  fromInternal(internal: InternalObject): KubeObject;
}

/** Every version of one kind, converted through one internal form and stored as one of them. */
export interface KindConversion {
  /** Names the internal form (`core.Event`): versions with the same internal form convert into each other. */
  readonly internal: string;
  /** The version objects are kept in storage as (upstream's storage version). */
  readonly storageVersion: GroupVersionKind;
  readonly versions: readonly VersionConversion[];
}

/** The key of a group/version/kind. */
export const gvkKey = (gvk: GroupVersionKind): string => `${groupVersionString(gvk)}#${gvk.kind}`;

/** Sets apiVersion and kind first, as every encoded object has them. */
export function withTypeMeta(gvk: GroupVersionKind, fields: Readonly<Record<string, unknown>>): KubeObject {
  const { apiVersion: _, kind: __, ...rest } = fields;
  return { apiVersion: groupVersionString(gvk), kind: gvk.kind, ...rest } as KubeObject;
}

/** The object without apiVersion and kind. */
export function withoutTypeMeta(object: Readonly<Record<string, unknown>>): InternalObject {
  const { apiVersion: _, kind: __, ...rest } = object;
  return rest as InternalObject;
}

/**
 * Upstream's `None` conversion strategy of a CustomResourceDefinition: the
 * versions share one schema and only apiVersion changes.
 */
export function noneConversion(group: string, kind: string, versions: readonly string[], storageVersion: string): KindConversion {
  return {
    internal: `${group}.${kind}`,
    storageVersion: { group, version: storageVersion, kind },
    versions: versions.map((version) => ({
      group,
      version,
      kind,
      toInternal: withoutTypeMeta,
      fromInternal: (internal) => withTypeMeta({ group, version, kind }, internal),
    })),
  };
}
