/**
 * The audit record of one request while it travels the pipeline: the
 * policy's decision for it and the event fields gathered on the way (the
 * request and response objects at the levels that keep them, annotations
 * from authorization and admission, the time spent per stage). Handlers and
 * filters reach it through the helpers below, which do nothing for a request
 * that is not audited.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext, UserInfo } from '../server/context.js';
import { formatGoDuration, type LatencyStage } from './latency-tracker.js';
import type { PolicyDecision } from './policy.js';
import type { AuditEvent, ObjectReference, Stage, UserInfoJson } from './types.js';

export class RequestAudit {
  readonly auditID: string;
  readonly receivedAt: string;
  readonly sourceIPs: string[];
  readonly userAgent: string | undefined;
  readonly annotations: Record<string, string> = {};
  objectRef: ObjectReference | undefined;
  requestObject: unknown;
  responseObject: unknown;
  responseStatus: Record<string, unknown> | undefined;
  impersonatedUser: UserInfo | undefined;
  /** The user before impersonation, when the request impersonates someone (set by withImpersonation). */
  authenticatedUser: UserInfo | undefined;

  constructor(
    readonly decision: PolicyDecision,
    ctx: RequestContext,
  ) {
    const header = ctx.req.headers['audit-id'];
    this.auditID = typeof header === 'string' && header !== '' ? header : randomUUID();
    this.receivedAt = microTime(wallClockMs() - Number(process.hrtime.bigint() - ctx.start) / 1e6);
    this.sourceIPs = sourceIPs(ctx);
    const agent = ctx.req.headers['user-agent'];
    this.userAgent = typeof agent === 'string' && agent !== '' ? agent : undefined;
    const info = ctx.info;
    if (info.isResourceRequest) {
      const ref: ObjectReference = {};
      if (info.resource !== '') ref.resource = info.resource;
      if (info.namespace !== '') ref.namespace = info.namespace;
      if (info.name !== '') ref.name = info.name;
      if (info.apiGroup !== '') ref.apiGroup = info.apiGroup;
      if (info.apiVersion !== '') ref.apiVersion = info.apiVersion;
      if (info.subresource !== '') ref.subresource = info.subresource;
      this.objectRef = ref;
    }
  }

  /** Levels at or above `level` keep what that level adds. */
  keeps(level: 'Request' | 'RequestResponse'): boolean {
    const l = this.decision.level;
    return level === 'Request' ? l === 'Request' || l === 'RequestResponse' : l === 'RequestResponse';
  }

  event(ctx: RequestContext, stage: Stage): AuditEvent {
    const user = this.authenticatedUser ?? ctx.user;
    // Fields in upstream's order, so that the log reads like upstream's.
    const event: Partial<AuditEvent> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.decision.level,
      auditID: this.auditID,
      stage,
      requestURI: ctx.req.url ?? ctx.path,
      verb: ctx.info.verb,
      user: user === undefined ? { username: '' } : userJson(user),
    };
    if (this.impersonatedUser !== undefined) event.impersonatedUser = userJson(this.impersonatedUser);
    if (this.sourceIPs.length > 0) event.sourceIPs = this.sourceIPs;
    if (this.userAgent !== undefined) event.userAgent = this.userAgent;
    if (this.objectRef !== undefined) event.objectRef = { ...this.objectRef };
    if (stage !== 'RequestReceived') event.responseStatus = this.responseStatus ?? { metadata: {}, code: ctx.res.statusCode };
    if (this.keeps('Request') && this.requestObject !== undefined) event.requestObject = this.requestObject;
    if (this.keeps('RequestResponse') && this.responseObject !== undefined && stage !== 'ResponseStarted') event.responseObject = this.responseObject;
    event.requestReceivedTimestamp = this.receivedAt;
    event.stageTimestamp = microTime(wallClockMs());
    const annotations: Record<string, string> = { ...this.annotations };
    if (stage === 'ResponseComplete' || stage === 'Panic') {
      if (ctx.latency !== undefined) for (const [name, ns] of ctx.latency.entries()) annotations[`apiserver.latency.k8s.io/${name}`] = formatGoDuration(ns);
      annotations['apiserver.latency.k8s.io/total'] = formatGoDuration(process.hrtime.bigint() - ctx.start);
    }
    if (Object.keys(annotations).length > 0) event.annotations = annotations;
    return event as AuditEvent;
  }
}

function userJson(user: UserInfo): UserInfoJson {
  const json: UserInfoJson = { username: user.name };
  if (user.uid !== undefined && user.uid !== '') json.uid = user.uid;
  if (user.groups.length > 0) json.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) {
    json.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  }
  return json;
}

/** Upstream's SourceIPs: X-Forwarded-For entries, then X-Real-Ip, then the connection's address (each once). */
function sourceIPs(ctx: RequestContext): string[] {
  const ips: string[] = [];
  const forwarded = ctx.req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string') for (const ip of forwarded.split(',')) if (ip.trim() !== '') ips.push(ip.trim());
  const real = ctx.req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim() !== '' && !ips.includes(real.trim())) ips.push(real.trim());
  const remote = ctx.req.socket?.remoteAddress;
  if (remote !== undefined && !ips.includes(remote)) ips.push(remote);
  return ips;
}

/** The wall clock in ms with a fraction (sub-millisecond, from the monotonic clock). */
function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** RFC 3339 with microseconds (metav1.MicroTime). */
function microTime(ms: number): string {
  const micros = Math.floor(ms * 1000);
  const seconds = Math.floor(micros / 1e6);
  const fraction = String(micros - seconds * 1e6).padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** Record the decoded request body (creates, updates, patches): completes objectRef and, at Request level and above, keeps the object. */
export function auditRequestObject(ctx: RequestContext, object: unknown): void {
  const audit = ctx.audit;
  if (audit === undefined) return;
  const meta = (object as { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } } | undefined)?.metadata;
  if (audit.objectRef !== undefined && meta !== undefined) {
    if (audit.objectRef.name === undefined && typeof meta.name === 'string' && meta.name !== '') audit.objectRef.name = meta.name;
    if (audit.objectRef.namespace === undefined && typeof meta.namespace === 'string' && meta.namespace !== '') audit.objectRef.namespace = meta.namespace;
    if (audit.objectRef.uid === undefined && typeof meta.uid === 'string' && meta.uid !== '') audit.objectRef.uid = meta.uid;
    if (audit.objectRef.resourceVersion === undefined && typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') {
      audit.objectRef.resourceVersion = meta.resourceVersion;
    }
  }
  if (audit.keeps('Request')) audit.requestObject = object;
}

/**
 * Record what the server answers: a Status becomes responseStatus; at
 * RequestResponse level the object is kept. A create whose name the server
 * generated (generateName) gets that name and uid in objectRef, so that the
 * story of every object can be followed from its first line in the log.
 */
export function auditResponseObject(ctx: RequestContext, code: number, value: unknown): void {
  const audit = ctx.audit;
  if (audit === undefined) return;
  const typed = value as { kind?: unknown; metadata?: { name?: string; uid?: string } } | undefined;
  if (typed?.kind === 'Status') {
    const { kind: _kind, apiVersion: _apiVersion, ...status } = value as Record<string, unknown>;
    audit.responseStatus = { ...status, code };
  } else {
    audit.responseStatus = { metadata: {}, code };
    if (ctx.info.verb === 'create' && audit.objectRef !== undefined && ctx.info.subresource === '' && typed?.metadata !== undefined) {
      if (audit.objectRef.name === undefined && typed.metadata.name !== undefined) audit.objectRef.name = typed.metadata.name;
      if (audit.objectRef.uid === undefined && typed.metadata.uid !== undefined) audit.objectRef.uid = typed.metadata.uid;
    }
  }
  if (audit.keeps('RequestResponse')) audit.responseObject = value;
}

/** An annotation on the request's audit events (e.g. authorization.k8s.io/decision). */
export function addAuditAnnotation(ctx: RequestContext, key: string, value: string): void {
  if (ctx.audit !== undefined) ctx.audit.annotations[key] = value;
}

/** Run `work` counting its time under `stage` when the request is audited. */
export async function timeStage<T>(ctx: RequestContext, stage: LatencyStage, work: () => Promise<T>): Promise<T> {
  return ctx.latency === undefined ? work() : ctx.latency.time(stage, work);
}
