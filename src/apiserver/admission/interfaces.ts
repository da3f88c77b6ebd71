/**
 * Admission: the stage between "who may do this" (authorization) and
 * storage. Mutating plugins may change the object (defaults, injections);
 * then the strategy validates the schema; then validating plugins may refuse
 * it (policy). A plugin refuses by throwing a StatusError (upstream's
 * admission errors: 403 Forbidden with `<kind> "<name>" is forbidden: <reason>`
 * for policy, 422 Invalid for bad values, 400/500 when it cannot decide);
 * anything else it throws is answered 500 with the plugin named, never a stack trace.
 *
 * Where it runs (see endpoints/admission.ts):
 * - create: mutating after decoding (and field management), validating inside the
 *   store after the strategy's prepare/validate, before the write;
 * - update/patch: mutating on the new object inside the store's retry loop (it
 *   runs again when a concurrent write wins), validating after the strategy;
 * - delete: validating with oldObject, before the object is marked or removed.
 * Subresources are admitted as their parent resource with `subresource` set.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { UserInfo } from '../server/context.js';
import type { StoreLookup } from '../endpoints/target.js';
import type { Authorizer } from '../auth/authorizers/interface.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** One request as admission sees it (upstream's admission.Attributes). */
export interface AdmissionAttributes {
  readonly operation: Operation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** '' for the resource itself; `status`, `binding`, `eviction`, … */
  readonly subresource: string;
  readonly namespace: string;
  /** May be '' on create with generateName (the name is generated inside the store, after mutating admission). */
  readonly name: string;
  /** The object being written. Mutating plugins change it in place; undefined for DELETE and CONNECT. */
  readonly object: KubeObject | undefined;
  /** The stored object for UPDATE and DELETE. Never change it. */
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
  /** The request's CreateOptions/UpdateOptions/PatchOptions/DeleteOptions as sent, when a webhook needs them. */
  readonly options?: Readonly<Record<string, unknown>>;
  readonly userInfo: UserInfo;
  /** A warning for the client (Warning header: kubectl prints it). */
  addWarning(text: string): void;
  /** An annotation on the request's audit events, e.g. `pod-security.kubernetes.io/enforce-policy`. */
  addAuditAnnotation(key: string, value: string): void;
}

export interface AdmissionPlugin {
  /** Upstream's plugin name (`NamespaceLifecycle`, `PodSecurity`, …), as --enable-admission-plugins takes it. */
  readonly name: string;
  handles(operation: Operation): boolean;
}

export interface MutatingAdmissionPlugin extends AdmissionPlugin {
  admit(attributes: AdmissionAttributes): Promise<void> | void;
}

export interface ValidatingAdmissionPlugin extends AdmissionPlugin {
  validate(attributes: AdmissionAttributes): Promise<void> | void;
}

/** What plugins may use: the server's own stores (read through the watch cache; writes go through storage with compare-and-swap). */
export interface AdmissionDependencies {
  readonly stores: StoreLookup;
  /** The server's authorizer (upstream's WantsAuthorizer: CertificateApproval and CertificateSigning ask it); absent in unit tests. */
  readonly authorizer?: Authorizer;
  /** Stops background work (informers, caches) the plugins started. */
  readonly signal: AbortSignal;
}

/** Build a plugin; throws Error with a clear message when its configuration is wrong. */
export type AdmissionPluginFactory = (deps: AdmissionDependencies) => MutatingAdmissionPlugin | ValidatingAdmissionPlugin | (MutatingAdmissionPlugin & ValidatingAdmissionPlugin);

/** The enabled plugins, in upstream's order; the first refusal stops the request. */
export interface AdmissionChain {
  /** Run every mutating plugin that handles the operation. */
  admit(attributes: AdmissionAttributes): Promise<void>;
  /** Run every validating plugin that handles the operation. */
  validate(attributes: AdmissionAttributes): Promise<void>;
  /** The names of the enabled plugins, in order. */
  readonly names: readonly string[];
}

export function isMutating(plugin: AdmissionPlugin): plugin is MutatingAdmissionPlugin {
  return typeof (plugin as Partial<MutatingAdmissionPlugin>).admit === 'function';
}

export function isValidating(plugin: AdmissionPlugin): plugin is ValidatingAdmissionPlugin {
  return typeof (plugin as Partial<ValidatingAdmissionPlugin>).validate === 'function';
}
