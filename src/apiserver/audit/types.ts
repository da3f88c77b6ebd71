/**
 * The shapes of upstream's audit API (audit.k8s.io/v1): the Event written
 * for each stage of a request, and the Policy that decides how much of each
 * request is written.
 */

/** How much of a request an event records: nothing, who/what/when, plus the request body, plus the response body. */
export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];

/**
 * RequestReceived: as soon as the request arrives (after authentication).
 * ResponseStarted: a long-running request (watch) sent its headers.
 * ResponseComplete: the response is done. Panic: the handler failed unexpectedly.
 */
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';
export const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  readonly group?: string;
  /** `pods`, `pods/log`, `*` (every resource), `*\/scale` (every scale subresource) as upstream. */
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface PolicyRule {
  readonly level: Level;
  readonly users?: readonly string[];
  readonly userGroups?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resources?: readonly GroupResources[];
  readonly namespaces?: readonly string[];
  /** `/healthz`, `/metrics*` (a trailing * matches any suffix). */
  readonly nonResourceURLs?: readonly string[];
  readonly omitStages?: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

export interface Policy {
  readonly apiVersion: 'audit.k8s.io/v1';
  readonly kind: 'Policy';
  readonly rules: readonly PolicyRule[];
  readonly omitStages?: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface UserInfoJson {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** An audit.k8s.io/v1 Event, fields in upstream's order. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: UserInfoJson;
  impersonatedUser?: UserInfoJson;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}
