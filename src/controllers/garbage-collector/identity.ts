/**
 * An object's coordinates as the garbage collector knows them: the owner
 * reference fields plus a namespace ('' for cluster-scoped), as upstream's
 * objectReference.
 */
import type { OwnerReference } from '../../machinery/meta.js';

export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  /** '' when cluster-scoped (or, for a virtual node, the namespace of the dependent that named it). */
  readonly namespace: string;
}

export function identityKey(i: ObjectIdentity): string {
  return [i.apiVersion, i.kind, i.namespace, i.name, i.uid].join('\u0000');
}

export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid && a.namespace === b.namespace;
}

/** The identity an owner reference names, seen from a dependent in `namespace`. */
export function identityOfOwnerRef(ref: OwnerReference, namespace: string): ObjectIdentity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/** True when the reference names exactly these coordinates (namespace aside). */
export function ownerRefMatches(ref: OwnerReference, identity: ObjectIdentity): boolean {
  return ref.uid === identity.uid && ref.name === identity.name && ref.kind === identity.kind && ref.apiVersion === identity.apiVersion;
}

/** Upstream's objectReference.String(), used in Event messages. */
export function formatIdentity(i: ObjectIdentity): string {
  return `[${i.apiVersion}/${i.kind}, namespace: ${i.namespace}, name: ${i.name}, uid: ${i.uid}]`;
}
