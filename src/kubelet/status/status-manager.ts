/**
 * The status manager (upstream's status/status_manager.go): the pod workers
 * hand it each pod's generated status; it keeps the latest and writes it to
 * pods/status with a strategic merge PATCH — the difference from the status
 * the API server last showed (from the pods the kubelet is given, and from
 * the answers to its own patches), with the pod's uid in the patch metadata —
 * only when they differ. It never reads before writing. A failed write is
 * retried every retryIntervalMs; writes never block the pod workers, so pods
 * keep running while the API server is unreachable and their status catches
 * up when it returns. A static pod's status goes to its mirror pod (same
 * namespace and name, no uid precondition).
 */
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { PODS } from '../../client/rest/resources.js';
import type { Client } from '../../client/rest/interface.js';
import type { Logger } from '../../machinery/logger.js';
import { isConflict, isInvalid, isNotFound } from '../../machinery/status.js';
import { isStaticPod, type Pod } from '../types.js';
import { KUBELET_CONDITIONS } from './conditions.js';
import { podStatusPatch } from './status-patch.js';
import { deepCopy } from '../../machinery/meta.js';

export interface StatusManagerOptions {
  readonly client: Client;
  readonly logger: Logger;
  /** How long after a failed write it is tried again (upstream syncs every 10 s). */
  readonly retryIntervalMs: number;
}

interface Entry {
  namespace: string;
  name: string;
  /** The pod's uid for the patch precondition; undefined for static pods (their mirror pod has another uid). */
  uid: string | undefined;
  desired: PodStatus | undefined;
  api: PodStatus | undefined;
  apiVersion: bigint | undefined;
  writing: boolean;
  /** The API server answered that the pod (or, for a static pod, its mirror) is gone, or is another pod now. */
  gone: boolean;
  retry: NodeJS.Timeout | undefined;
  waiters: (() => void)[];
}

const parseVersion = (rv: string | undefined): bigint | undefined => {
  if (rv === undefined || !/^\d+$/.test(rv)) return undefined;
  return BigInt(rv);
};

const mirrorKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The desired status plus what others own in the API's: conditions the kubelet does not set, the nominated node. */
function withForeignFields(desired: PodStatus, api: PodStatus | undefined): PodStatus {
  if (api === undefined) return desired;
  const merged: PodStatus = { ...desired };
  const mine = new Set((desired.conditions ?? []).map((c) => c.type));
  const foreign = (api.conditions ?? []).filter((c) => !mine.has(c.type) && !KUBELET_CONDITIONS.has(c.type));
  if (foreign.length > 0) merged.conditions = [...foreign, ...(desired.conditions ?? [])];
  if (merged.nominatedNodeName === undefined && api.nominatedNodeName !== undefined) merged.nominatedNodeName = api.nominatedNodeName;
  if (merged.resize === undefined && api.resize !== undefined) merged.resize = api.resize;
  return merged;
}

export class StatusManager {
  private readonly entries = new Map<string, Entry>();
  /** Static pod uid by the mirror pod's namespace/name. */
  private readonly staticByName = new Map<string, string>();
  private stopped = false;

  constructor(private readonly options: StatusManagerOptions) {}

  /** The last status set for the pod (the base of the next one). */
  getPodStatus(uid: string): PodStatus | undefined {
    return this.entries.get(uid)?.desired;
  }

  /** Records the pod's status as the API shows it (from the pods the kubelet is given); writes if it differs from the desired one. */
  observePod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) {
      const staticUid = this.staticByName.get(mirrorKey(pod.metadata.namespace ?? '', pod.metadata.name ?? ''));
      if (staticUid !== undefined) this.observe(staticUid, pod);
      return;
    }
    this.entry(pod);
    this.observe(uid, pod);
  }

  private observe(uid: string, pod: Pod): void {
    const entry = this.entries.get(uid);
    if (entry === undefined) return;
    const version = parseVersion(pod.metadata.resourceVersion);
    if (version !== undefined && entry.apiVersion !== undefined && version < entry.apiVersion) return;
    entry.api = pod.status ?? {};
    if (version !== undefined) entry.apiVersion = version;
    entry.gone = false;
    this.kick(uid, entry);
  }

  private entry(pod: Pod): Entry {
    const uid = pod.metadata.uid ?? '';
    let entry = this.entries.get(uid);
    if (entry === undefined) {
      const isStatic = isStaticPod(pod);
      entry = {
        namespace: pod.metadata.namespace ?? '',
        name: pod.metadata.name ?? '',
        uid: isStatic ? undefined : uid,
        desired: undefined,
        api: isStatic ? undefined : pod.status,
        apiVersion: isStatic ? undefined : parseVersion(pod.metadata.resourceVersion),
        writing: false,
        gone: false,
        retry: undefined,
        waiters: [],
      };
      this.entries.set(uid, entry);
      if (isStatic) this.staticByName.set(mirrorKey(entry.namespace, entry.name), uid);
    }
    return entry;
  }

  /** The pod's newest status: written soon if it differs from the API's. */
  setPodStatus(pod: Pod, status: PodStatus): void {
    const entry = this.entry(pod);
    entry.desired = deepCopy(status);
    this.kick(pod.metadata.uid ?? '', entry);
  }

  /** True when the API shows the desired status (or the pod is gone from the API). */
  isSynced(uid: string): boolean {
    const entry = this.entries.get(uid);
    if (entry === undefined || entry.desired === undefined || entry.gone) return true;
    return this.patchFor(entry) === undefined;
  }

  /** Resolves once the desired status is written (or the pod is gone from the API), or when `signal` aborts. */
  async flush(uid: string, signal: AbortSignal): Promise<void> {
    while (!this.isSynced(uid) && !signal.aborted && !this.stopped) {
      const entry = this.entries.get(uid)!;
      await new Promise<void>((resolve) => {
        const onAbort = (): void => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        entry.waiters.push(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  removePod(uid: string): void {
    const entry = this.entries.get(uid);
    if (entry === undefined) return;
    clearTimeout(entry.retry);
    this.entries.delete(uid);
    if (entry.uid === undefined) this.staticByName.delete(mirrorKey(entry.namespace, entry.name));
    for (const wake of entry.waiters.splice(0)) wake();
  }

  stop(): void {
    this.stopped = true;
    for (const entry of this.entries.values()) {
      clearTimeout(entry.retry);
      for (const wake of entry.waiters.splice(0)) wake();
    }
  }

  private patchFor(entry: Entry): Record<string, unknown> | undefined {
    if (entry.desired === undefined) return undefined;
    return podStatusPatch(entry.api, withForeignFields(entry.desired, entry.api), entry.uid);
  }

  private kick(uid: string, entry: Entry): void {
    if (this.stopped || entry.writing || entry.retry !== undefined) return;
    const patch = entry.gone ? undefined : this.patchFor(entry);
    if (patch === undefined) {
      for (const wake of entry.waiters.splice(0)) wake();
      return;
    }
    void this.write(uid, entry, patch);
  }

  /** `firstPatch`: the patch kick just computed (nothing has changed since: write starts synchronously). */
  private async write(uid: string, entry: Entry, firstPatch: Record<string, unknown>): Promise<void> {
    entry.writing = true;
    const pods = this.options.client.resource<Pod>(PODS);
    let computed: Record<string, unknown> | undefined = firstPatch;
    try {
      for (;;) {
        if (this.stopped || this.entries.get(uid) !== entry || entry.gone) return;
        const patch = computed ?? this.patchFor(entry);
        computed = undefined;
        if (patch === undefined) return;
        try {
          const updated = await pods.patch(entry.name, 'strategic', patch, { namespace: entry.namespace, subresource: 'status' });
          const version = parseVersion(updated.metadata.resourceVersion);
          if (version === undefined || entry.apiVersion === undefined || version >= entry.apiVersion) {
            entry.api = updated.status ?? {};
            if (version !== undefined) entry.apiVersion = version;
          }
          this.options.logger.debug({ pod: `${entry.namespace}/${entry.name}`, phase: updated.status?.phase }, 'Status for pod updated successfully');
        } catch (e: unknown) {
          if (entry.uid !== undefined && (isNotFound(e) || isConflict(e) || isInvalid(e))) {
            // The pod is gone, or its name belongs to another pod now (the uid precondition failed).
            // (A static pod's mirror pod may not exist yet: that is retried below.)
            this.options.logger.info({ pod: `${entry.namespace}/${entry.name}`, err: String(e) }, 'Pod not found or replaced in the API server, status not written');
            entry.gone = true;
            return;
          }
          this.options.logger.warn({ pod: `${entry.namespace}/${entry.name}`, err: String(e) }, 'Failed to update status for pod; will retry');
          entry.retry = setTimeout(() => {
            entry.retry = undefined;
            this.kick(uid, entry);
          }, this.options.retryIntervalMs);
          entry.retry.unref?.();
          return;
        }
      }
    } finally {
      entry.writing = false;
      for (const wake of entry.waiters.splice(0)) wake();
    }
  }
}
