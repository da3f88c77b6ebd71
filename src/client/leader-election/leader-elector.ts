/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's
 * leaderelection semantics, so that several replicas of a component can run
 * and only one acts:
 * - A candidate tries to take the Lease every retry period (jittered). The
 *   Lease is free when its holderIdentity is empty, or when the elector has
 *   seen the same record unchanged for leaseDurationSeconds by its own clock:
 *   as upstream, it never compares its clock with the holder's renewTime.
 * - The leader renews every retry period; when it cannot renew within the
 *   renew deadline (the API server is unreachable, or another holder took the
 *   Lease) it stops leading: the signal given to onStartedLeading aborts and
 *   onStoppedLeading runs. A process should then exit, as upstream's do, so
 *   that no two leaders ever act.
 * - On a clean stop (the run signal aborts) the leader releases the Lease:
 *   holderIdentity empty, leaseDurationSeconds 1, so the next takes over at once.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Lease, LeaseSpec } from 'kubernetes-types/coordination/v1.js';
import type { Logger } from '../../machinery/logger.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { Client, ResourceClient } from '../rest/interface.js';
import { LEASES } from '../rest/resources.js';

export type LeaseObject = Lease & KubeObject;

/** client-go's JitterFactor: retries wait retryPeriod × [1, 2.2). */
export const JITTER_FACTOR = 1.2;

/** Upstream's defaults (kube-controller-manager's and kube-scheduler's --leader-elect-* flags). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** The longest a release on stop may take. */
const RELEASE_TIMEOUT_MS = 5_000;

export interface LeaderCallbacks {
  /** Became leader: do the work until `signal` aborts (lost leadership or stop). */
  onStartedLeading(signal: AbortSignal): void;
  /** Called once when run() ends, whether this elector led or not (as upstream). */
  onStoppedLeading(): void;
  /** The observed leader changed (also reports this elector's own identity). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  readonly client: Client;
  readonly namespace: string;
  readonly name: string;
  /** Default: hostname + '_' + a random UUID, as kube-controller-manager's. */
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Release the Lease when run()'s signal aborts (default true). */
  readonly releaseOnCancel?: boolean;
  readonly callbacks: LeaderCallbacks;
  readonly logger?: Logger;
  /** The clock (tests). */
  readonly now?: () => number;
}

/** The default holder identity: hostname_uuid. */
export const defaultLeaderIdentity = (): string => `${hostname()}_${randomUUID()}`;

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function validateLeaderElectionTimers(leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): void {
  if (leaseDurationMs <= renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
  if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) throw new Error(`renewDeadline must be greater than retryPeriod*JitterFactor`);
  if (leaseDurationMs < 1 || renewDeadlineMs < 1 || retryPeriodMs < 1) throw new Error('leaseDuration, renewDeadline and retryPeriod must be positive');
}

export class LeaderElector {
  readonly identity: string;
  private readonly leases: ResourceClient<LeaseObject>;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  /** The last Lease spec read or written, and when (by our clock) it was first seen so. */
  private observed: LeaseSpec | undefined;
  private observedJson = '';
  private observedTime = 0;
  private observedResourceVersion: string | undefined;
  private reportedLeader = '';

  constructor(private readonly config: LeaderElectionConfig) {
    this.identity = config.identity ?? defaultLeaderIdentity();
    this.leaseDurationMs = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    validateLeaderElectionTimers(this.leaseDurationMs, this.renewDeadlineMs, this.retryPeriodMs);
    if (this.identity === '') throw new Error('leader election requires a non-empty identity');
    this.leases = config.client.resource<LeaseObject>(LEASES);
    this.now = config.now ?? Date.now;
  }

  /** True while the last observed record names this elector. */
  get isLeader(): boolean {
    return this.observed?.holderIdentity === this.identity;
  }

  /** The holder of the last observed record ('' if none). */
  get leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * Campaign until leading, lead until the Lease is lost or `signal` aborts,
   * then release (on abort) and call onStoppedLeading. Never rejects.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const onAbort = (): void => leading.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        this.config.callbacks.onStartedLeading(leading.signal);
      } catch (e: unknown) {
        this.config.logger?.error({ err: e }, 'onStartedLeading failed');
      }
      await this.renew(signal);
      signal.removeEventListener('abort', onAbort);
      leading.abort();
      if (signal.aborted && (this.config.releaseOnCancel ?? true)) await this.release();
    } finally {
      this.config.callbacks.onStoppedLeading();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    const log = this.config.logger;
    log?.info({ lease: this.leaseName() }, 'attempting to acquire leader lease');
    for (;;) {
      if (signal.aborted) return false;
      // An attempt is bounded (the client may be retrying against an API server that is down) and ends on abort.
      const acquired = await this.withTimeout(this.tryAcquireOrRenew(), this.renewDeadlineMs, signal);
      this.reportTransition();
      if (acquired) {
        log?.info({ lease: this.leaseName() }, 'successfully acquired lease');
        return true;
      }
      const jittered = this.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
      if (!(await sleep(jittered, signal))) return false;
    }
  }

  /** Renew every retry period; returns when a renewal misses the deadline or the signal aborts. */
  private async renew(signal: AbortSignal): Promise<void> {
    const log = this.config.logger;
    for (;;) {
      const deadline = this.now() + this.renewDeadlineMs;
      let renewed = false;
      for (;;) {
        if (signal.aborted) return;
        const left = deadline - this.now();
        if (left <= 0) break;
        renewed = await this.withTimeout(this.tryAcquireOrRenew(), left, signal);
        if (renewed) break;
        if (!(await sleep(Math.min(this.retryPeriodMs, Math.max(0, deadline - this.now())), signal))) return;
      }
      this.reportTransition();
      if (!renewed) {
        log?.error({ lease: this.leaseName() }, 'failed to renew lease: timed out waiting for the condition; leader election lost');
        return;
      }
      if (!(await sleep(this.retryPeriodMs, signal))) return;
    }
  }

  /** The attempt's result, or false once `ms` pass or the signal aborts. */
  private async withTimeout(attempt: Promise<boolean>, ms: number, signal?: AbortSignal): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([attempt, timeout]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  private leaseName(): string {
    return `${this.config.namespace}/${this.config.name}`;
  }

  private observe(spec: LeaseSpec, resourceVersion: string | undefined, at: number): void {
    const json = JSON.stringify(spec);
    if (json !== this.observedJson) {
      this.observed = spec;
      this.observedJson = json;
      this.observedTime = at;
    }
    this.observedResourceVersion = resourceVersion;
  }

  private reportTransition(): void {
    const holder = this.leader;
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder !== '') this.config.logger?.info({ lease: this.leaseName(), holder }, 'new leader elected');
    try {
      this.config.callbacks.onNewLeader?.(holder);
    } catch (e: unknown) {
      this.config.logger?.error({ err: e }, 'onNewLeader failed');
    }
  }

  /** One attempt: create the Lease, or take or renew it when allowed. Never throws. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const leaseDurationSeconds = Math.ceil(this.leaseDurationMs / 1000);
    const record: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds,
      acquireTime: formatMicroTime(now),
      renewTime: formatMicroTime(now),
      leaseTransitions: 0,
    };
    const { namespace, name } = this.config;
    let existing: LeaseObject;
    try {
      existing = await this.leases.get(name, { namespace });
    } catch (e: unknown) {
      if (!isNotFound(e)) {
        this.config.logger?.warn({ err: e, lease: this.leaseName() }, 'error retrieving lease');
        return false;
      }
      try {
        const created = await this.leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: record }, { namespace });
        this.observe(created.spec ?? record, created.metadata.resourceVersion, this.now());
        return true;
      } catch (err: unknown) {
        this.config.logger?.warn({ err, lease: this.leaseName() }, 'error initially creating lease');
        return false;
      }
    }
    const old = existing.spec ?? {};
    this.observe(old, existing.metadata.resourceVersion, now);
    const oldHolder = old.holderIdentity ?? '';
    const expiresAt = this.observedTime + (old.leaseDurationSeconds ?? 0) * 1000;
    if (oldHolder !== '' && oldHolder !== this.identity && expiresAt > now) {
      this.config.logger?.debug({ lease: this.leaseName(), holder: oldHolder }, 'lease is held by another and has not yet expired');
      return false;
    }
    if (oldHolder === this.identity) {
      if (old.acquireTime !== undefined) record.acquireTime = old.acquireTime;
      record.leaseTransitions = old.leaseTransitions ?? 0;
    } else {
      record.leaseTransitions = (old.leaseTransitions ?? 0) + 1;
    }
    try {
      const updated = await this.leases.update({ ...existing, spec: record }, { namespace });
      this.observe(updated.spec ?? record, updated.metadata.resourceVersion, this.now());
      return true;
    } catch (e: unknown) {
      this.config.logger?.warn({ err: e, lease: this.leaseName() }, 'failed to update lease');
      return false;
    }
  }

  /** Give the Lease up (holderIdentity ''), if this elector holds it; never throws. */
  async release(): Promise<boolean> {
    const resourceVersion = this.observedResourceVersion;
    if (!this.isLeader || resourceVersion === undefined) return true;
    const now = formatMicroTime(this.now());
    const spec: LeaseSpec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observed?.leaseTransitions ?? 0,
    };
    const { namespace, name } = this.config;
    const attempt = (async (): Promise<boolean> => {
      let version = resourceVersion;
      // A renewal still in flight when the stop came may land first and move the resourceVersion on:
      // a Conflict then means "read it again", and the Lease is released if it is still ours.
      for (let tries = 0; tries < 3; tries++) {
        try {
          const updated = await this.leases.update(
            { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace, resourceVersion: version }, spec },
            { namespace },
          );
          this.observe(updated.spec ?? spec, updated.metadata.resourceVersion, this.now());
          this.config.logger?.info({ lease: this.leaseName() }, 'released leader lease');
          return true;
        } catch (e: unknown) {
          if (!isConflict(e)) {
            this.config.logger?.error({ err: e, lease: this.leaseName() }, 'failed to release lease');
            return false;
          }
          try {
            const current = await this.leases.get(name, { namespace });
            if (current.spec?.holderIdentity !== this.identity) return true; // no longer ours to release
            if (current.metadata.resourceVersion === undefined) return false;
            version = current.metadata.resourceVersion;
          } catch (readError: unknown) {
            this.config.logger?.error({ err: readError, lease: this.leaseName() }, 'failed to release lease');
            return false;
          }
        }
      }
      this.config.logger?.error({ lease: this.leaseName() }, 'failed to release lease: it kept changing');
      return false;
    })();
    // A stopping process must not hang on an API server that is gone too: the Lease then simply expires.
    return this.withTimeout(attempt, Math.min(this.renewDeadlineMs, RELEASE_TIMEOUT_MS));
  }
}
