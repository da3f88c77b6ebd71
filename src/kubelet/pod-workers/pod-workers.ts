/**
 * The pod workers (upstream's pod_workers.go, much reduced): one worker per
 * pod UID runs that pod's syncs one at a time — never two at once — on
 * every change of the pod, on every resyncIntervalMs, when the runtime shows
 * one of its containers changed state (a relist every relistIntervalMs,
 * upstream's PLEG), when a probe result changes, and when a back-off ends.
 *
 * A worker's life: it syncs the pod (pod-sync.ts) while it should run; once
 * the pod is Succeeded or Failed its sandbox is stopped and it is left alone;
 * a pod with a deletionTimestamp is stopped within its grace period, its
 * final status written and, for API pods, deleted from the API (grace 0, uid
 * precondition); a pod absent from the desired set is killed at once and its
 * sandboxes, logs and volumes removed, and then the worker ends.
 * Housekeeping removes sandboxes (and volume and log directories, and on cri
 * pod cgroups) of pods that no worker knows, such as those of pods deleted
 * while the kubelet was down. Nothing here stops containers on stop(): they
 * outlive the kubelet, and a new PodWorkers adopts them (same ids, restart
 * counts from annotations).
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonEqual } from '../../machinery/meta.js';
import { POD_UID_LABEL } from '../runtime/labels.js';
import { withProbeState } from '../status/probe-status.js';
import { StatusManager } from '../status/status-manager.js';
import { CONFIG_MIRROR_ANNOTATION, type Pod } from '../types.js';
import type { PodWorkers, PodWorkersOptions } from './interface.js';
import { OrphanedPodCgroups } from './pod-cgroup.js';
import { errorMessage, PodSyncer, type PodState } from './pod-sync.js';

interface Worker extends PodState {
  /** 'running': synced to run; 'terminated': finished (Succeeded/Failed) or deleted from the API, left alone until removed. */
  phase: 'running' | 'terminated';
  /** Absent from the desired set: the next sync cleans it up and ends the worker. */
  removed: boolean;
  /** Terminated after its deletionTimestamp, final status written and (API pods) deleted from the API. */
  deleted: boolean;
  pending: boolean;
  loop: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;
  timerAt: number;
}

const DEFAULT_RELIST_MS = 1000;
const DEFAULT_STATUS_RETRY_MS = 10_000;
const HOUSEKEEPING_MS = 2000;

class PodWorkersImpl implements PodWorkers {
  private readonly workers = new Map<string, Worker>();
  private readonly syncer: PodSyncer;
  private readonly statuses: StatusManager;
  private readonly abort = new AbortController();
  private readonly resyncTimer: NodeJS.Timeout;
  private readonly relistTimer: NodeJS.Timeout;
  private relisting: Promise<void> | undefined;
  private housekeeping: Promise<void> | undefined;
  private housekeepingAgain = false;
  private housekeepingTimer: NodeJS.Timeout | undefined;
  private lastHousekeeping = 0;
  private lastStates = new Map<string, string>();
  private readonly podCgroups: OrphanedPodCgroups;
  private haveDesiredSet = false;
  private stopped = false;

  constructor(private readonly options: PodWorkersOptions) {
    this.statuses = new StatusManager({ client: options.client, logger: options.logger, retryIntervalMs: options.statusRetryIntervalMs ?? DEFAULT_STATUS_RETRY_MS });
    this.syncer = new PodSyncer(options, this.statuses);
    this.podCgroups = new OrphanedPodCgroups(options.cgroupRoot);
    this.resyncTimer = setInterval(() => {
      for (const w of this.workers.values()) this.schedule(w);
      this.runHousekeeping();
    }, options.resyncIntervalMs);
    this.resyncTimer.unref();
    this.relistTimer = setInterval(() => this.relist(), options.relistIntervalMs ?? DEFAULT_RELIST_MS);
    this.relistTimer.unref();
  }

  update(pods: readonly Pod[]): void {
    if (this.stopped) return;
    const desired = new Map<string, Pod>();
    const mirrors: Pod[] = [];
    for (const pod of pods) {
      if (pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined) mirrors.push(pod);
      else if (pod.metadata.uid !== undefined && pod.metadata.uid !== '') desired.set(pod.metadata.uid, pod);
    }
    for (const [uid, pod] of desired) {
      let w = this.workers.get(uid);
      if (w === undefined) {
        w = {
          uid,
          pod,
          failures: new Map(),
          probed: new Map(),
          kills: [],
          phase: 'running',
          removed: false,
          deleted: false,
          pending: false,
          loop: undefined,
          timer: undefined,
          timerAt: 0,
        };
        this.workers.set(uid, w);
        this.statuses.observePod(pod);
        this.schedule(w);
        continue;
      }
      // The sources hand on the same object for a pod that did not change: no need to compare it.
      if (w.pod === pod && !w.removed) continue;
      const changed = w.removed || needsSync(w.pod, pod);
      w.pod = pod;
      w.removed = false;
      this.syncer.shortenGracePeriod(w);
      this.statuses.observePod(pod);
      if (changed) this.schedule(w);
    }
    for (const mirror of mirrors) this.statuses.observePod(mirror);
    for (const [uid, w] of this.workers) {
      if (!desired.has(uid) && !w.removed) {
        w.removed = true;
        this.syncer.shortenGracePeriod(w, 0);
        this.schedule(w);
      }
    }
    this.haveDesiredSet = true;
    this.runHousekeeping();
  }

  requestSync(podUid: string): void {
    const w = this.workers.get(podUid);
    if (w === undefined) return;
    this.reportProbeState(w);
    this.schedule(w);
  }

  /** A probe result goes into the status now, not after the next sync (which may be busy for a while). */
  private reportProbeState(w: Worker): void {
    if (this.stopped || w.phase !== 'running' || w.removed || w.pod.metadata.deletionTimestamp !== undefined) return;
    const status = this.statuses.getPodStatus(w.uid);
    if (status === undefined) return;
    const { probes } = this.options;
    const updated = withProbeState(w.pod, status, { isReady: (name) => probes.isReady(w.uid, name), isStarted: (name) => probes.isStarted(w.uid, name) }, new Date());
    if (updated !== undefined) this.statuses.setPodStatus(w.pod, updated);
  }

  killContainer(podUid: string, containerName: string, containerId: string, message: string): void {
    const w = this.workers.get(podUid);
    if (w === undefined) return;
    w.kills.push({ name: containerName, id: containerId, message });
    this.schedule(w);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    clearInterval(this.resyncTimer);
    clearInterval(this.relistTimer);
    clearTimeout(this.housekeepingTimer);
    this.statuses.stop();
    for (const w of this.workers.values()) clearTimeout(w.timer);
    await Promise.all([...[...this.workers.values()].map((w) => w.loop), this.relisting, this.housekeeping]);
  }

  // ---- workers ---------------------------------------------------------------

  private schedule(w: Worker): void {
    if (this.stopped) return;
    w.pending = true;
    if (w.loop === undefined) w.loop = this.run(w);
  }

  private scheduleAt(w: Worker, at: number): void {
    if (this.stopped) return;
    if (w.timer !== undefined && w.timerAt <= at) return;
    clearTimeout(w.timer);
    w.timerAt = at;
    w.timer = setTimeout(() => {
      w.timer = undefined;
      this.schedule(w);
    }, Math.max(0, at - Date.now()));
    w.timer.unref();
  }

  private async run(w: Worker): Promise<void> {
    try {
      while (w.pending && !this.stopped) {
        w.pending = false;
        try {
          await this.sync(w);
        } catch (e: unknown) {
          this.options.logger.error({ pod: `${w.pod.metadata.namespace ?? ''}/${w.pod.metadata.name ?? ''}`, err: errorMessage(e) }, 'Error syncing pod, skipping');
          this.scheduleAt(w, Date.now() + this.options.backoff.initialMs);
        }
      }
    } finally {
      w.loop = undefined;
    }
  }

  private async sync(w: Worker): Promise<void> {
    if (w.removed) {
      clearTimeout(w.timer);
      await this.syncer.cleanUpPod(w);
      if (w.removed && this.workers.get(w.uid) === w) {
        this.workers.delete(w.uid);
        w.pending = false;
      }
      return;
    }
    if (w.pod.metadata.deletionTimestamp !== undefined) {
      if (w.deleted) return;
      const done = await this.syncer.terminatePod(w, this.abort.signal);
      if (done) {
        w.deleted = true;
        w.phase = 'terminated';
      } else this.scheduleAt(w, Date.now() + this.options.backoff.initialMs);
      return;
    }
    if (w.phase === 'terminated') return;
    const result = await this.syncer.syncPod(w);
    if (result.terminal === true) w.phase = 'terminated';
    if (result.retryAt !== undefined) this.scheduleAt(w, result.retryAt);
  }

  // ---- relist (PLEG) and housekeeping -----------------------------------------

  /** Lists every container and wakes the workers of pods whose containers changed state. */
  private relist(): void {
    if (this.stopped || this.relisting !== undefined) return;
    this.relisting = (async () => {
      try {
        const containers = await this.options.runtime.runtime.listContainers();
        const states = new Map<string, string>();
        const changed = new Set<string>();
        for (const c of containers) {
          const uid = c.labels[POD_UID_LABEL];
          if (uid === undefined) continue;
          states.set(c.id, `${uid} ${c.state}`);
          if (this.lastStates.get(c.id) !== `${uid} ${c.state}`) changed.add(uid);
        }
        for (const [id, value] of this.lastStates) if (!states.has(id)) changed.add(value.split(' ')[0]!);
        this.lastStates = states;
        for (const uid of changed) {
          const w = this.workers.get(uid);
          if (w !== undefined) this.schedule(w);
        }
      } catch (e: unknown) {
        this.options.logger.warn({ err: errorMessage(e) }, 'Failed to list containers (relist)');
      } finally {
        this.relisting = undefined;
      }
    })();
  }

  /** Housekeeping at most every HOUSEKEEPING_MS (upstream's housekeeping period), however often the desired set changes. */
  private runHousekeeping(): void {
    if (this.stopped || !this.haveDesiredSet || this.housekeepingTimer !== undefined) return;
    const wait = Math.max(0, this.lastHousekeeping + HOUSEKEEPING_MS - Date.now());
    this.housekeepingTimer = setTimeout(() => {
      this.housekeepingTimer = undefined;
      this.lastHousekeeping = Date.now();
      this.startHousekeeping();
    }, wait);
    this.housekeepingTimer.unref();
  }

  private startHousekeeping(): void {
    if (this.stopped) return;
    if (this.housekeeping !== undefined) {
      this.housekeepingAgain = true;
      return;
    }
    this.housekeeping = (async () => {
      try {
        do {
          this.housekeepingAgain = false;
          await this.removeOrphans();
        } while (this.housekeepingAgain && !this.stopped);
      } catch (e: unknown) {
        this.options.logger.warn({ err: errorMessage(e) }, 'Failed to clean up orphaned pods');
      } finally {
        this.housekeeping = undefined;
      }
    })();
  }

  /** Sandboxes, volume and log directories (and on cri pod cgroups) of pods no worker knows: stopped and removed. */
  private async removeOrphans(): Promise<void> {
    const runtime = this.options.runtime.runtime;
    for (const sandbox of await runtime.listPodSandbox()) {
      const uid = sandbox.labels[POD_UID_LABEL];
      if (uid === undefined || this.workers.has(uid) || this.stopped) continue;
      this.options.logger.info({ sandbox: sandbox.id, podUid: uid }, 'Removing the sandbox of an orphaned pod');
      await runtime.stopPodSandbox(sandbox.id);
      await runtime.removePodSandbox(sandbox.id);
    }
    for (const c of await runtime.listContainers()) {
      const uid = c.labels[POD_UID_LABEL];
      if (uid === undefined || this.workers.has(uid) || this.stopped) continue;
      await runtime.removeContainer(c.id);
    }
    for (const uid of await this.options.volumes.podsOnDisk()) {
      if (!this.workers.has(uid) && !this.stopped) await this.options.volumes.tearDownPod(uid);
    }
    let dirs: string[] = [];
    try {
      dirs = await readdir(this.options.logsDir);
    } catch {
      // no logs yet
    }
    for (const dir of dirs) {
      const uid = dir.split('_')[2];
      if (uid !== undefined && !this.workers.has(uid) && !this.stopped) await rm(join(this.options.logsDir, dir), { recursive: true, force: true });
    }
    // Only containerd makes pod cgroups (and leaves them behind). Once stopped, every pod counts as known: nothing goes.
    if (this.options.runtime.name !== 'cri') return;
    const known = (uid: string): boolean => this.stopped || this.workers.has(uid);
    const runtimePods = async (): Promise<Set<string>> =>
      new Set([...(await runtime.listPodSandbox()), ...(await runtime.listContainers())].flatMap((o) => o.labels[POD_UID_LABEL] ?? []));
    for (const cgroup of await this.podCgroups.sweep(known, runtimePods)) this.options.logger.info({ cgroup }, 'Orphaned pod found, removed its pod cgroups');
  }
}

/** The pod as far as a sync is concerned: not its status, resourceVersion or managed fields. */
function syncedParts(pod: Pod): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pod.metadata as Pod['metadata'] & { managedFields?: unknown };
  return { metadata, spec: pod.spec };
}

/**
 * As upstream's pod config tells updates from reconciles: a change of the
 * status alone (often the kubelet's own write coming back) needs no sync — the
 * status manager compares it — unless readiness gates read its conditions.
 */
function needsSync(before: Pod, after: Pod): boolean {
  if (!jsonEqual(syncedParts(before), syncedParts(after))) return true;
  return (after.spec?.readinessGates ?? []).length > 0 && !jsonEqual(before.status?.conditions, after.status?.conditions);
}

export function newPodWorkers(options: PodWorkersOptions): PodWorkers {
  return new PodWorkersImpl(options);
}
