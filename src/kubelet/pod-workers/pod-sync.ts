/**
 * One pod's sync, termination and clean-up against the runtime (upstream's
 * Kubelet.SyncPod / SyncTerminatingPod / SyncTerminatedPod and the runtime
 * manager's SyncPod, killPod, startContainer, killContainer). The pod
 * workers (pod-workers.ts) call these one at a time per pod.
 */
import { readdir, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { PODS } from '../../client/rest/resources.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import { EnvError } from '../env/interface.js';
import { isRuntimeNotFound, type PodSandboxConfig } from '../runtime/interface.js';
import { POD_UID_LABEL } from '../runtime/labels.js';
import type { StartFailure } from '../status/container-statuses.js';
import { generatePodStatus } from '../status/generate-status.js';
import type { StatusManager } from '../status/status-manager.js';
import { isStaticPod, type ContainerSpec, type Pod } from '../types.js';
import { VolumeError } from '../volumes/interface.js';
import { backoffKey, ContainerBackoff } from './backoff.js';
import { containerConfig, podGracePeriodSeconds } from './container-config.js';
import { hashContainer } from './container-hash.js';
import { containerFieldPath } from './container-ref.js';
import { EVENT, WAITING } from './events.js';
import type { PodWorkersOptions } from './interface.js';
import { formatPod, runLifecycleHandler } from './lifecycle-hooks.js';
import { computePodActions, isHostNetwork, isRestartableInit, type PodActions } from './pod-actions.js';
import { latestContainer, nanosToMs, readRuntimePod, runningContainers, sandboxIPs, type RuntimeContainer, type RuntimePod } from './runtime-pod.js';
import { podLogsDirectory, podSandboxConfig } from './sandbox-config.js';
import { podDnsConfig, writePodResolvConf } from './dns-config.js';
import { podCgroupParent, removePodCgroup } from './pod-cgroup.js';
import { terminationMessageMount, TERMINATION_MESSAGE_PATH_ANNOTATION, withTerminationMessages } from './termination-message.js';

/** upstream's minimumGracePeriodInSeconds: a container always gets this long after SIGTERM unless the kill is forced. */
const MINIMUM_GRACE_SECONDS = 2;

/** What the workers keep per pod between syncs. */
export interface PodState {
  readonly uid: string;
  pod: Pod;
  /** Last start failure per container name (upstream's reasonCache). */
  readonly failures: Map<string, StartFailure>;
  /** Containers reported to the probe manager as started: name → container id. */
  readonly probed: Map<string, string>;
  /** Kills asked for by failed liveness/startup probes. */
  readonly kills: { name: string; id: string; message: string }[];
}

/** What a sync asks of its worker. */
export interface SyncResult {
  /** Sync again at this time (ms since the epoch): the end of a back-off, a retry. */
  readonly retryAt?: number;
  /** The pod reached Succeeded or Failed: its containers will not run again. */
  readonly terminal?: boolean;
}

export interface KillOptions {
  /** Seconds; forced kills (a pod gone from the desired set) use 0 and skip preStop. */
  readonly gracePeriodOverride?: number;
  readonly message?: string;
}

/** See PodWorkersOptions.recheckAfterActMs. */
const DEFAULT_RECHECK_AFTER_ACT_MS = 100;

export class PodSyncer {
  readonly backoff: ContainerBackoff;
  private runtimeName: string | undefined;
  /** Container stops in progress, by pod UID (a shorter grace period cuts them short). */
  private readonly kills = new Map<string, Set<InFlightKill>>();
  /** Termination messages of exited containers, by pod UID and then container id (they never change). */
  private readonly terminationMessages = new Map<string, Map<string, string>>();

  constructor(
    private readonly options: PodWorkersOptions,
    readonly statuses: StatusManager,
  ) {
    this.backoff = new ContainerBackoff(options.backoff);
  }

  private get runtime() {
    return this.options.runtime.runtime;
  }

  /** `<runtimeName>://<id>` prefixes containerIDs in status (containerd: `containerd`). */
  private async containerIdScheme(): Promise<string> {
    if (this.runtimeName === undefined) {
      const version = await this.runtime.version();
      this.runtimeName = version.runtimeName;
    }
    return this.runtimeName;
  }

  private retryAt(): number {
    return Date.now() + this.options.backoff.initialMs;
  }

  // ---- sync ------------------------------------------------------------------

  /** Makes the runtime match a pod that should run, then reports its status. */
  async syncPod(state: PodState): Promise<SyncResult> {
    const pod = state.pod;
    let retryAt: number | undefined;
    const later = (at: number): void => {
      retryAt = retryAt === undefined ? at : Math.min(retryAt, at);
    };

    let volumes: ReadonlyMap<string, string> | undefined;
    try {
      volumes = await this.options.volumes.setUpPod(pod);
    } catch (e: unknown) {
      const message = e instanceof VolumeError ? `MountVolume.SetUp failed for volume "${e.volume}" : ${e.message}` : `Unable to attach or mount volumes: ${errorMessage(e)}`;
      this.options.events.event(pod, 'Warning', EVENT.failedMount, message);
      later(this.retryAt());
    }

    await this.processKills(state);
    const runtimePod = await readRuntimePod(this.runtime, state.uid);
    let acted = false;
    if (volumes !== undefined) {
      // As upstream's SyncPod: probing of the pod begins once its volumes are ready, before its containers are made.
      this.options.probes.addPod(pod);
      const started = await this.applyActions(state, runtimePod, volumes);
      if (started.retryAt !== undefined) later(started.retryAt);
      acted = started.acted;
      // What this sync changed is reported by a sync soon after, not by this one (see below); the
      // relist would wake it within a second, which would put up to a second on every pod start.
      // Not when something is to be retried (a container in back-off, a failed start): that has
      // its own time, and a recheck would spin.
      if (started.acted && started.retryAt === undefined) later(Date.now() + (this.options.recheckAfterActMs ?? DEFAULT_RECHECK_AFTER_ACT_MS));
    }
    // Read again only after changing something: a sync with nothing to do (most syncs of a running pod) reports what it read.
    const after = acted ? await readRuntimePod(this.runtime, state.uid) : runtimePod;
    await this.pruneContainers(pod, after);
    // As upstream's SyncPod, the status is the runtime as this sync found it, before it acted:
    // what it started is reported by the next sync (the recheck above, or the relist), as running
    // or, when it has already exited, as exited. Reporting a container the moment it was started
    // would count one that exits at once (a crash loop) as running and ready, and a Deployment of
    // such pods would briefly be Available and its rollout complete.
    const status = await this.reportStatus(state, runtimePod, false);
    const terminal = status.phase === 'Succeeded' || status.phase === 'Failed';
    if (terminal) {
      await this.stopPod(state, after, { gracePeriodOverride: 0 });
      this.options.probes.removePod(state.uid);
      state.probed.clear();
    }
    return { ...(retryAt !== undefined && !terminal ? { retryAt } : {}), terminal };
  }

  private async processKills(state: PodState): Promise<void> {
    for (const kill of state.kills.splice(0)) {
      let container;
      try {
        container = await this.runtime.containerStatus(kill.id);
      } catch (e: unknown) {
        if (isRuntimeNotFound(e)) continue;
        throw e;
      }
      if (container.state !== 'CONTAINER_RUNNING') continue;
      await this.killContainer(state, kill.name, kill.id, { message: kill.message });
    }
  }

  /** `acted`: something was asked of the runtime (false when the pod already runs as it should). */
  private async applyActions(state: PodState, runtimePod: RuntimePod, volumes: ReadonlyMap<string, string>): Promise<SyncResult & { readonly acted: boolean }> {
    const pod = state.pod;
    const actions = computePodActions(pod, runtimePod, (name) => this.options.probes.isStarted(state.uid, name));
    if (isIdle(actions)) return { acted: false };
    if (actions.createSandbox && actions.sandboxId !== '') {
      this.options.events.event(pod, 'Normal', EVENT.sandboxChanged, 'Pod sandbox changed, it will be killed and re-created.');
    }
    if (actions.killPod) {
      await this.stopPod(state, runtimePod, {});
      if (actions.createSandbox) {
        // A new sandbox starts initialisation over: the old init containers go.
        const inits = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
        for (const c of runtimePod.containers) if (inits.has(c.name)) await this.removeContainer(c);
      }
    } else {
      for (const kill of actions.containersToKill) await this.killContainer(state, kill.name, kill.id, { message: kill.message });
    }

    let sandboxId = actions.sandboxId;
    let podIPs = sandboxIPs(runtimePod);
    const sandboxConfig = withCgroupParent(podSandboxConfig(pod, actions.attempt, this.options.logsDir, this.options.dns), podCgroupParent(pod));
    if (actions.createSandbox) {
      if (this.options.dns !== undefined) {
        for (const w of podDnsConfig(pod, this.options.dns).warnings) this.options.events.event(pod, 'Warning', w.reason, w.message);
        if (sandboxConfig.dnsConfig !== undefined) await writePodResolvConf(join(this.options.rootDir, 'pods', state.uid), sandboxConfig.dnsConfig);
      }
      try {
        sandboxId = await this.runtime.runPodSandbox(sandboxConfig);
        const sandbox = await this.runtime.podSandboxStatus(sandboxId);
        podIPs = sandbox.network !== undefined && sandbox.network.ip !== '' ? [sandbox.network.ip, ...sandbox.network.additionalIps] : [];
      } catch (e: unknown) {
        this.options.events.event(pod, 'Warning', EVENT.failedCreatePodSandBox, `Failed to create pod sandbox: ${errorMessage(e)}`);
        return { retryAt: this.retryAt(), acted: true };
      }
    }
    if (isHostNetwork(pod)) podIPs = this.options.nodeIPs.slice(0, 1);
    const context: StartContext = { sandboxId, sandboxConfig, podIPs, volumes, runtimePod };

    let retryAt: number | undefined;
    const note = (at: number | undefined): void => {
      if (at !== undefined) retryAt = retryAt === undefined ? at : Math.min(retryAt, at);
    };
    // Before init containers, as upstream: an ephemeral container can debug a pod stuck initializing.
    for (const ephemeral of actions.ephemeralContainersToStart) note(await this.startContainer(state, ephemeral, context));
    for (const init of actions.initContainersToStart) {
      const result = await this.startContainer(state, init, context);
      note(result);
      // A regular init container that did not start holds back what follows it; a sidecar does not.
      if (result !== undefined && !isRestartableInit(init)) return retryAt === undefined ? { acted: true } : { retryAt, acted: true };
    }
    for (const container of actions.containersToStart) note(await this.startContainer(state, container, context));
    return retryAt === undefined ? { acted: true } : { retryAt, acted: true };
  }

  /** Starts one container; undefined when it started, else when to try again. */
  private async startContainer(state: PodState, container: ContainerSpec, context: StartContext): Promise<number | undefined> {
    const pod = state.pod;
    const about = { fieldPath: containerFieldPath(pod, container.name) };
    const fail = (reason: string, message: string, event?: { reason: string; message: string }): number => {
      state.failures.set(container.name, { reason, message });
      if (event !== undefined) this.options.events.event(pod, 'Warning', event.reason, event.message, about);
      return this.retryAt();
    };

    // Crash-loop back-off, from when the newest exited container of this name finished.
    const key = backoffKey(state.uid, container.name, hashContainer(container));
    const exited = context.runtimePod.containers.find((c) => c.name === container.name && c.state === 'CONTAINER_EXITED');
    if (exited !== undefined) {
      const finishedMs = nanosToMs(exited.finishedAt);
      if (this.backoff.isInBackOffSince(key, finishedMs)) {
        this.options.events.event(pod, 'Warning', EVENT.backOff, `Back-off restarting failed container ${container.name} in pod ${formatPod(pod)}`, about);
        state.failures.set(container.name, {
          reason: WAITING.crashLoopBackOff,
          message: `back-off ${this.backoff.describe(key)} restarting failed container=${container.name} pod=${formatPod(pod)}`,
        });
        return this.backoff.releaseAt(key, finishedMs);
      }
      this.backoff.next(key, finishedMs);
    }

    const image = container.image ?? '';
    const present = await this.options.runtime.images.imageStatus(image);
    const neverPull = `Container image "${image}" is not present on this node and the kubelet never pulls: import it into the runtime (k8ts image build … makes busybox)`;
    if (present === undefined && this.options.runtime.name !== 'process') {
      return fail(WAITING.errImageNeverPull, neverPull, { reason: EVENT.errImageNeverPull, message: neverPull });
    }
    if (present === undefined && (container.command ?? []).length === 0 && (container.args ?? []).length === 0) {
      // The process runtime runs an absent image's container with the host's executables, but only the image could say which.
      const noCommand = `Container image "${image}" is not present on this node, and container ${container.name} names no command to run with the host's executables instead: build or import the image (k8ts image build hello, k8ts image build busybox)`;
      return fail(WAITING.errImageNeverPull, noCommand, { reason: EVENT.errImageNeverPull, message: noCommand });
    }
    if (present !== undefined) this.options.events.event(pod, 'Normal', EVENT.pulled, `Container image "${image}" already present on machine`, about);

    let envs;
    try {
      envs = await this.options.env.containerEnv(pod, container, { podIPs: context.podIPs, hostIPs: this.options.nodeIPs, node: this.options.node() });
    } catch (e: unknown) {
      if (!(e instanceof EnvError)) throw e;
      return fail(WAITING.createContainerConfigError, e.message, { reason: EVENT.failed, message: `Error: ${e.message}` });
    }
    const mounts = [...this.options.containerMounts(container, context.volumes)];
    try {
      const terminationLog = await terminationMessageMount(this.options.rootDir, pod, container);
      if (terminationLog !== undefined) mounts.push(terminationLog);
    } catch (e: unknown) {
      // As upstream: the container starts without the file (its message will be empty).
      this.options.logger.warn({ pod: formatPod(pod), container: container.name, err: errorMessage(e) }, 'Error on creating the termination-log file');
    }
    const latest = latestContainer(context.runtimePod, container.name);
    const restartCount = latest !== undefined ? latest.restartCount + 1 : await restartCountFromLogs(join(podLogsDirectory(this.options.logsDir, pod), container.name));
    // An ephemeral container with a target shares that container's processes (while it runs).
    const targetName = (container as { targetContainerName?: string }).targetContainerName ?? '';
    const target = targetName === '' ? undefined : latestContainer(context.runtimePod, targetName);
    const config = containerConfig({
      pod,
      container,
      restartCount,
      envs,
      mounts,
      node: this.options.node(),
      ...(target?.state === 'CONTAINER_RUNNING' ? { targetContainerId: target.id } : {}),
    });

    let id: string;
    try {
      id = await this.runtime.createContainer(context.sandboxId, config, context.sandboxConfig);
    } catch (e: unknown) {
      if (present === undefined && isRuntimeNotFound(e)) return fail(WAITING.errImageNeverPull, neverPull, { reason: EVENT.errImageNeverPull, message: neverPull });
      return fail(WAITING.createContainerError, errorMessage(e), { reason: EVENT.failed, message: `Error: ${errorMessage(e)}` });
    }
    if (present === undefined) {
      this.options.events.event(
        pod,
        'Warning',
        EVENT.imageNotPresent,
        `Container image "${image}" is not present on this node: container ${container.name} runs the host's executables instead (import the image, e.g. k8ts image build busybox)`,
        about,
      );
    }
    this.options.events.event(pod, 'Normal', EVENT.created, `Created container: ${container.name}`, about);
    try {
      await this.runtime.startContainer(id);
    } catch (e: unknown) {
      return fail(WAITING.runContainerError, `failed to start container "${id}": ${errorMessage(e)}`, { reason: EVENT.failed, message: `Error: ${errorMessage(e)}` });
    }
    this.options.events.event(pod, 'Normal', EVENT.started, `Started container ${container.name}`, about);
    state.failures.delete(container.name);

    const postStart = container.lifecycle?.postStart;
    if (postStart !== undefined) {
      const podIP = context.podIPs[0] ?? this.options.nodeIPs[0] ?? '127.0.0.1';
      try {
        await runLifecycleHandler(postStart, { runtime: this.runtime, pod, container, containerId: id, podIP, timeoutSeconds: podGracePeriodSeconds(pod) || 30 });
      } catch (e: unknown) {
        const message = errorMessage(e);
        this.options.events.event(pod, 'Warning', EVENT.failedPostStartHook, message, about);
        await this.killContainer(state, container.name, id, { message: 'FailedPostStartHook' });
        state.failures.set(container.name, { reason: WAITING.postStartHookError, message });
        return this.retryAt();
      }
    }
    return undefined;
  }

  // ---- stopping --------------------------------------------------------------

  /** upstream's killContainer: Killing event, preStop within the grace period, then SIGTERM and SIGKILL after what is left of it. */
  async killContainer(state: PodState, name: string, id: string, options: KillOptions): Promise<void> {
    const pod = state.pod;
    const spec = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === name);
    let grace = options.gracePeriodOverride ?? podGracePeriodSeconds(pod);
    let forced = options.gracePeriodOverride !== undefined;
    const about = { fieldPath: containerFieldPath(pod, name) };
    this.options.events.event(pod, 'Normal', EVENT.killing, options.message ?? `Stopping container ${name}`, about);
    const kill = this.trackKill(state.uid, options.gracePeriodOverride ?? Math.max(grace, MINIMUM_GRACE_SECONDS));
    try {
      const preStop = spec?.lifecycle?.preStop;
      if (preStop !== undefined && spec !== undefined && !forced && grace > 0) {
        const started = Date.now();
        const podIP = (this.statuses.getPodStatus(state.uid)?.podIP ?? pod.status?.podIP) || (this.options.nodeIPs[0] ?? '127.0.0.1');
        const hook = runLifecycleHandler(preStop, { runtime: this.runtime, pod, container: spec, containerId: id, podIP, timeoutSeconds: grace }).catch((e: unknown) => {
          this.options.events.event(pod, 'Warning', EVENT.failedPreStopHook, errorMessage(e), about);
        });
        let timer: NodeJS.Timeout | undefined;
        const shortened = await Promise.race([hook, new Promise<void>((resolve) => (timer = setTimeout(resolve, grace * 1000))), kill.shortened()]);
        clearTimeout(timer);
        // A shorter grace period cuts the hook short and is what the container gets; otherwise the hook's time is used up.
        forced = typeof shortened === 'number';
        grace = typeof shortened === 'number' ? shortened : grace - Math.floor((Date.now() - started) / 1000);
      }
      if (!forced) grace = Math.max(grace, MINIMUM_GRACE_SECONDS);
      let stopping = this.runtime.stopContainer(id, grace);
      for (;;) {
        const shortened = await Promise.race([stopping, kill.shortened()]);
        if (typeof shortened !== 'number') break;
        // Stop again with the shorter grace (SIGKILL for 0); the first stop ends as the container does.
        const first = stopping;
        stopping = Promise.all([this.runtime.stopContainer(id, shortened), first.catch(() => undefined)]).then(() => undefined);
      }
    } finally {
      kill.done();
    }
    if (state.probed.get(name) === id) {
      state.probed.delete(name);
      this.options.probes.containerStopped(state.uid, name);
    }
  }

  /**
   * A pod's grace period got shorter while its containers were being stopped:
   * a second delete with a smaller gracePeriodSeconds (the pod's new
   * deletionGracePeriodSeconds) or, with `graceSeconds` 0, a forced delete
   * (the pod gone from the desired set). Every stop in flight whose deadline
   * is later than the new grace allows is cut short, as upstream's pod
   * workers shorten an in-progress termination.
   */
  shortenGracePeriod(state: PodState, graceSeconds?: number): void {
    const kills = this.kills.get(state.uid);
    if (kills === undefined) return;
    if (graceSeconds === undefined) {
      if (state.pod.metadata.deletionTimestamp === undefined) return;
      graceSeconds = podGracePeriodSeconds(state.pod);
    }
    for (const kill of kills) kill.shorten(graceSeconds);
  }

  private trackKill(uid: string, graceSeconds: number): InFlightKill {
    let kills = this.kills.get(uid);
    if (kills === undefined) this.kills.set(uid, (kills = new Set()));
    const kill = new InFlightKill(graceSeconds, () => {
      kills.delete(kill);
      if (kills.size === 0 && this.kills.get(uid) === kills) this.kills.delete(uid);
    });
    kills.add(kill);
    return kill;
  }

  /** Stops every running container (in parallel) and every ready sandbox of the pod. */
  async stopPod(state: PodState, runtimePod: RuntimePod, options: KillOptions): Promise<void> {
    await Promise.all(runningContainers(runtimePod).map((c) => this.killContainer(state, c.name, c.id, options)));
    for (const sandbox of runtimePod.sandboxes) {
      if (sandbox.state === 'SANDBOX_READY') await this.runtime.stopPodSandbox(sandbox.id);
    }
  }

  /**
   * A pod being deleted: stop it within its grace period, report the final
   * status, and once the API shows it, delete the pod for good (grace 0,
   * uid precondition). Static pods have no API object to delete.
   * Resolves false when the delete must be tried again.
   */
  async terminatePod(state: PodState, signal: AbortSignal): Promise<boolean> {
    // Probes stop as termination starts (a liveness kill must not race the graceful stop).
    this.options.probes.removePod(state.uid);
    state.probed.clear();
    const before = await readRuntimePod(this.runtime, state.uid);
    await this.stopPod(state, before, {});
    const after = await readRuntimePod(this.runtime, state.uid);
    await this.reportStatus(state, after, true);
    const pod = state.pod;
    if (isStaticPod(pod)) return true;
    await this.statuses.flush(state.uid, signal);
    if (signal.aborted) return false;
    try {
      await this.options.client.resource<Pod>(PODS).delete(pod.metadata.name ?? '', {
        namespace: pod.metadata.namespace ?? '',
        gracePeriodSeconds: 0,
        preconditions: { uid: state.uid },
      });
    } catch (e: unknown) {
      if (isNotFound(e) || isConflict(e)) return true;
      this.options.logger.warn({ pod: formatPod(pod), err: errorMessage(e) }, 'Failed to delete the terminated pod; will retry');
      return false;
    }
    return true;
  }

  /** A pod gone from the desired set: kill it at once, then remove its sandboxes, containers, logs and volumes. */
  async cleanUpPod(state: PodState): Promise<void> {
    const runtimePod = await readRuntimePod(this.runtime, state.uid);
    await this.stopPod(state, runtimePod, { gracePeriodOverride: 0 });
    for (const sandbox of runtimePod.sandboxes) await this.runtime.removePodSandbox(sandbox.id);
    for (const c of runtimePod.containers) await this.runtime.removeContainer(c.id);
    // Only containerd makes cgroups (and leaves the pod's behind).
    if (this.options.runtime.name === 'cri') await removePodCgroup(podCgroupParent(state.pod), this.options.cgroupRoot);
    await rm(podLogsDirectory(this.options.logsDir, state.pod), { recursive: true, force: true });
    await this.options.volumes.tearDownPod(state.uid);
    this.options.probes.removePod(state.uid);
    this.statuses.removePod(state.uid);
    this.terminationMessages.delete(state.uid);
    this.backoff.forget(`${state.uid}/`);
  }

  /** Keeps the newest exited container of each name (for `logs --previous`); older ones, and exited ones the spec no longer names, go. */
  private async pruneContainers(pod: Pod, runtimePod: RuntimePod): Promise<void> {
    // An exited ephemeral container is kept too: gone from the runtime, it would be started again.
    const names = new Set([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].map((c) => c.name));
    const keptExited = new Set<string>();
    for (const c of runtimePod.containers) {
      if (c.state !== 'CONTAINER_EXITED') continue;
      if (names.has(c.name) && !keptExited.has(c.name)) {
        keptExited.add(c.name);
        continue;
      }
      await this.removeContainer(c);
    }
  }

  private async removeContainer(c: RuntimeContainer): Promise<void> {
    await this.runtime.removeContainer(c.id);
    if (c.logPath !== '') await rm(c.logPath, { force: true });
    // The termination-message file the kubelet made for it (never a file of the pod's own volumes).
    const terminationLog = c.mounts.find((m) => m.containerPath === c.annotations[TERMINATION_MESSAGE_PATH_ANNOTATION]);
    if (terminationLog !== undefined && terminationLog.hostPath.startsWith(join(this.options.rootDir, 'pods', c.labels[POD_UID_LABEL] ?? '', 'containers') + sep)) {
      await rm(terminationLog.hostPath, { force: true });
    }
  }

  // ---- status ----------------------------------------------------------------

  /** Generates the pod's status from the runtime, tells the probe manager which containers run, and hands the status on. */
  async reportStatus(state: PodState, runtimePod: RuntimePod, podIsTerminal: boolean): Promise<PodStatus> {
    const pod = state.pod;
    let messages = this.terminationMessages.get(state.uid);
    if (messages === undefined) this.terminationMessages.set(state.uid, (messages = new Map()));
    runtimePod = await withTerminationMessages(runtimePod, messages);
    const podIP = isHostNetwork(pod) ? (this.options.nodeIPs[0] ?? '') : (sandboxIPs(runtimePod)[0] ?? '');
    if (!podIsTerminal) this.notifyProbes(state, runtimePod, podIP);
    const status = generatePodStatus({
      pod,
      runtimePod,
      oldStatus: this.statuses.getPodStatus(state.uid) ?? pod.status ?? {},
      podIsTerminal,
      runtimeName: await this.containerIdScheme(),
      nodeIPs: this.options.nodeIPs,
      failures: state.failures,
      isReady: (name) => this.options.probes.isReady(state.uid, name),
      isStarted: (name) => this.options.probes.isStarted(state.uid, name),
      now: new Date(),
    });
    this.statuses.setPodStatus(pod, status);
    return status;
  }

  private notifyProbes(state: PodState, runtimePod: RuntimePod, podIP: string): void {
    const pod = state.pod;
    for (const spec of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      const latest = latestContainer(runtimePod, spec.name);
      if (latest?.state === 'CONTAINER_RUNNING') {
        if (state.probed.get(spec.name) !== latest.id) {
          state.probed.set(spec.name, latest.id);
          this.options.probes.containerStarted(pod, spec.name, latest.id, podIP);
        }
      } else if (state.probed.has(spec.name)) {
        state.probed.delete(spec.name);
        this.options.probes.containerStopped(state.uid, spec.name);
      }
    }
  }
}

/** One container being stopped: its deadline, and the shorter grace periods asked for since it began. */
class InFlightKill {
  private deadlineMs: number;
  private pending: number | undefined;
  private wake: ((graceSeconds: number) => void) | undefined;

  constructor(
    graceSeconds: number,
    readonly done: () => void,
  ) {
    this.deadlineMs = Date.now() + graceSeconds * 1000;
  }

  /** Asks for a shorter grace period; ignored unless it ends before the current deadline. */
  shorten(graceSeconds: number): void {
    const deadline = Date.now() + graceSeconds * 1000;
    if (deadline >= this.deadlineMs) return;
    this.deadlineMs = deadline;
    if (this.wake !== undefined) {
      const wake = this.wake;
      this.wake = undefined;
      wake(graceSeconds);
    } else this.pending = graceSeconds;
  }

  /** Resolves with the next shorter grace period asked for (at once if one is waiting). */
  shortened(): Promise<number> {
    if (this.pending !== undefined) {
      const grace = this.pending;
      this.pending = undefined;
      return Promise.resolve(grace);
    }
    return new Promise((resolve) => (this.wake = resolve));
  }
}

interface StartContext {
  readonly sandboxId: string;
  readonly sandboxConfig: PodSandboxConfig;
  readonly podIPs: readonly string[];
  readonly volumes: ReadonlyMap<string, string>;
  readonly runtimePod: RuntimePod;
}

/** Nothing to kill, create or start: the runtime already matches the pod. */
const isIdle = (actions: PodActions): boolean =>
  !actions.killPod &&
  !actions.createSandbox &&
  actions.containersToKill.length === 0 &&
  actions.ephemeralContainersToStart.length === 0 &&
  actions.initContainersToStart.length === 0 &&
  actions.containersToStart.length === 0;

/** The sandbox config with the pod's cgroup (pod-cgroup.ts) as its cgroup_parent. */
const withCgroupParent = (config: PodSandboxConfig, cgroupParent: string): PodSandboxConfig => ({ ...config, linux: { ...config.linux, cgroupParent } });

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * upstream's calcRestartCountByLogDir: a container with no predecessor in the
 * runtime (its sandbox was replaced, or the runtime lost its state) continues
 * after the newest `<n>.log` in its log directory, so no log is overwritten.
 */
export async function restartCountFromLogs(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) {
    const m = /^(\d+)\.log(\..*)?$/.exec(name);
    if (m !== null) count = Math.max(count, Number.parseInt(m[1]!, 10) + 1);
  }
  return count;
}
