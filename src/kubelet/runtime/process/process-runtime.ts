/**
 * The process container runtime: each container is a host process (no
 * isolation at all: like a host-process container), supervised by the node's
 * shim daemon (shimd.ts, container-shim.ts), which outlives the kubelet. Everything is kept in a state directory
 * (state-files.ts), so a new runtime over the same directory adopts the
 * sandboxes and containers of the last one with the same ids and states.
 *
 * What it does NOT isolate or apply: filesystems (mounts are recorded and
 * reported, not bound; the container sees the host's files, and its working
 * directory defaults to /), users (runAsUser/Group are ignored: processes run
 * as the kubelet's user), resources (no cgroups: limits are ignored), PID and
 * IPC namespaces, and the network: a pod's address is only a distinct loopback
 * address (the pod CIDR, see ../pod-ip-allocator.ts) that the pod's processes can
 * bind; nothing stops them from binding others. Exec'd processes are not in
 * the container's process group, so stopping the container does not end them.
 *
 * Images: see images.ts. A name with no image directory runs on the host's
 * PATH when `missingImages` is 'host' (the default; the kubelet then warns
 * with an Event), or fails with NotFound when it is 'reject' (containerd's
 * behaviour). Such a container's imageRef is ''.
 *
 * The container's environment is the image's env, then the config's envs, plus
 * PATH (the image's bin/ first, then the config's or image's PATH, else the
 * usual /usr/local/sbin:…:/bin), HOSTNAME (the sandbox's hostname) and HOME
 * (/root, as containerd sets it) unless given, and K8TS_TERMINATION_MESSAGE_PATH
 * (the host file the kubelet mounted at terminationMessagePath).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isAbsolute, join } from 'node:path';
import {
  RuntimeError,
  type Container,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerRuntime,
  type ContainerState,
  type ContainerStatus,
  type ExecRequest,
  type ExecSyncResult,
  type KeyValue,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxStatus,
  type RuntimeService,
  type RuntimeStatus,
  type StreamRequest,
  type StreamSession,
  type VersionInfo,
} from '../interface.js';
import { nowNanos } from '../clock.js';
import { ProcessImageService, type ResolvedImage } from './images.js';
import { allocatePodIp, parseIpv4Cidr, type Ipv4Cidr } from '../pod-ip-allocator.js';
import { isAlive } from './pid-alive.js';
import { ShimdClient } from './shimd-client.js';
import { niceForCpuShares } from './cpu-priority.js';
import { exitCodeOf, killGroup, startAttachSession, startExecSession, type ProcessContext } from './streams.js';
import {
  attachSocketPath,
  containerDir,
  containerFile,
  containersDir,
  readJsonIfExists,
  sandboxesDir,
  sandboxFile,
  shimLogFile,
  shimStateFile,
  writeJsonAtomic,
  type ContainerRecord,
  type SandboxRecord,
  type ShimState,
} from './state-files.js';

export const PROCESS_RUNTIME_NAME = 'k8ts-process';
export const PROCESS_RUNTIME_VERSION = '0.1.0';
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface ProcessRuntimeOptions {
  /** Where sandboxes and containers are recorded (DESIGN §5: under the kubelet's data directory). */
  readonly stateDir: string;
  /** Root of the image directories (see images.ts). */
  readonly imagesDir: string;
  /** The node's pod CIDR (e.g. 127.244.1.0/24); without it only host-network sandboxes can run. */
  readonly podCIDR?: string;
  /** 'host' (default): a container whose image has no directory runs on the host's PATH; 'reject': createContainer fails with NotFound. */
  readonly missingImages?: 'host' | 'reject';
  /** How often waits on a shim's state look again (ms); default 10. */
  readonly pollIntervalMs?: number;
  /** How long startContainer waits for the shim daemon to start the command (ms); default 10 000. */
  readonly shimStartTimeoutMs?: number;
  /** Boot (or find) the shim daemon at once rather than at the first container start (the kubelet does). */
  readonly shimDaemonAtOnce?: boolean;
}

/** How long stopContainer waits for the exit after SIGKILL before it gives up (ms). */
const KILL_WAIT_MS = 10_000;

const newId = (): string => randomBytes(32).toString('hex');
const matchesLabels = (labels: Readonly<Record<string, string>>, selector?: Readonly<Record<string, string>>): boolean =>
  selector === undefined || Object.entries(selector).every(([k, v]) => labels[k] === v);

function listIds(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n));
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/**
 * How long after a directory's modification time a listing of it must have
 * been taken to stand for it while the modification time stays the same:
 * the kernel stamps directories from a clock that advances a tick at a time
 * (up to 10 ms), so a change within the tick of the last one may leave the
 * time as it was.
 */
const SETTLED_MS = 50;

/** The records of one directory of the state directory (one subdirectory per id), as listed when the directory was as `stat` says. */
interface RecordListing<T> {
  readonly records: Map<string, T>;
  /** Subdirectories whose record was not there yet (a write under way): read again on every use. */
  readonly unwritten: Set<string>;
  readonly ino: number;
  readonly mtimeMs: number;
  /** Listed long enough after the directory's last change that a later change must change its modification time. */
  readonly settled: boolean;
}

/**
 * The listing of `dir`: the last one while the directory (one stat) has not
 * changed since, else a new one that reads only the records it did not have.
 */
function listRecords<T>(dir: string, file: (id: string) => string, last: RecordListing<T> | undefined): RecordListing<T> {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (last !== undefined && stat !== undefined && last.settled && stat.ino === last.ino && stat.mtimeMs === last.mtimeMs) {
    for (const id of last.unwritten) {
      const record = readJsonIfExists<T>(file(id));
      if (record !== undefined) {
        last.unwritten.delete(id);
        last.records.set(id, record);
      }
    }
    return last;
  }
  const listedAt = Date.now();
  const records = new Map<string, T>();
  const unwritten = new Set<string>();
  for (const id of listIds(dir)) {
    const record = last?.records.get(id) ?? readJsonIfExists<T>(file(id));
    if (record === undefined) unwritten.add(id);
    else records.set(id, record);
  }
  if (stat === undefined) return { records, unwritten, ino: -1, mtimeMs: -1, settled: false };
  return { records, unwritten, ino: stat.ino, mtimeMs: stat.mtimeMs, settled: listedAt - stat.mtimeMs >= SETTLED_MS };
}

/** Orders decimal strings of non-negative integers (the records' nanosecond timestamps) as the numbers they write, without parsing them. */
export function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A container's shim state as last read, with what identifies that version of state.json. */
interface ShimStateEntry {
  readonly state: ShimState;
  /** Where it is read from (made once per container). */
  readonly file: string;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly size: number;
}

/** Runs `fn` calls one at a time (sandbox creation must not hand one address out twice). */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

interface ContainerView {
  readonly record: ContainerRecord;
  readonly state: ContainerState;
  readonly shim: ShimState | undefined;
  readonly startedAt: bigint;
  readonly finishedAt: bigint;
  readonly exitCode: number;
  readonly reason: string;
  readonly message: string;
}


export class ProcessRuntimeService implements RuntimeService {
  private cidr: Ipv4Cidr | undefined;
  private podCIDR: string | undefined;
  private readonly sandboxLock = new Mutex();
  /** Containers whose shim this runtime is starting (a second start must not spawn a second shim). */
  private readonly starting = new Set<string>();
  private readonly pollMs: number;
  private readonly shims: ShimdClient;
  /** The sandbox and container records of the state directory (see sandboxes()). */
  private sandboxListing: RecordListing<SandboxRecord> | undefined;
  private containerListing: RecordListing<ContainerRecord> | undefined;
  /** The shims' state.json of containers, as last read (see readShimState). */
  private readonly shimStates = new Map<string, ShimStateEntry>();
  private readonly sandboxesDir: string;
  private readonly containersDir: string;

  constructor(
    private readonly options: ProcessRuntimeOptions,
    private readonly images: ProcessImageService,
  ) {
    this.podCIDR = options.podCIDR;
    this.cidr = options.podCIDR ? parseIpv4Cidr(options.podCIDR) : undefined;
    this.pollMs = options.pollIntervalMs ?? 10;
    this.sandboxesDir = sandboxesDir(options.stateDir);
    this.containersDir = containersDir(options.stateDir);
    mkdirSync(this.sandboxesDir, { recursive: true });
    mkdirSync(this.containersDir, { recursive: true });
    this.shims = new ShimdClient({
      script: fileURLToPath(new URL('./shimd.js', import.meta.url)),
      stateDir: options.stateDir,
      logFile: join(options.stateDir, 'shimd.log'),
      connectTimeoutMs: options.shimStartTimeoutMs ?? 10_000,
    });
    if (options.shimDaemonAtOnce === true) this.shims.warmUp();
  }

  /** Lets the shim daemon go: it exits if no container runs; running containers stay supervised. */
  async close(): Promise<void> {
    this.shims.close();
  }

  async version(): Promise<VersionInfo> {
    return { runtimeApiVersion: 'v1', runtimeName: PROCESS_RUNTIME_NAME, runtimeVersion: PROCESS_RUNTIME_VERSION };
  }

  async updateRuntimeConfig(config: { readonly podCIDR: string }): Promise<void> {
    if (config.podCIDR === '' || config.podCIDR === this.podCIDR) return;
    let cidr: Ipv4Cidr;
    try {
      cidr = parseIpv4Cidr(config.podCIDR);
    } catch (e: unknown) {
      throw new RuntimeError('InvalidArgument', e instanceof Error ? e.message : String(e));
    }
    this.cidr = cidr;
    this.podCIDR = config.podCIDR;
  }

  async status(): Promise<RuntimeStatus> {
    return {
      conditions: [
        { type: 'RuntimeReady', status: true, reason: '', message: '' },
        this.cidr
          ? { type: 'NetworkReady', status: true, reason: '', message: '' }
          : { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'the process runtime has no pod CIDR: only host-network pods can run' },
      ],
    };
  }

  // ---- sandboxes -----------------------------------------------------------

  /**
   * The records (sandbox.json, container.json) are kept in memory, written
   * through on every change; the files stay the durable truth (a new runtime
   * over the same directory, a restarted kubelet, reads them afresh). Each
   * use looks at the sandboxes (or containers) directory with one stat, and
   * lists it again only when it changed (a record made or removed, also by
   * another runtime over the same directory), reading only records it has
   * not read before: not the directory and every record file on every call.
   */
  private sandboxes(): Map<string, SandboxRecord> {
    this.sandboxListing = listRecords(this.sandboxesDir, (id) => sandboxFile(this.options.stateDir, id), this.sandboxListing);
    return this.sandboxListing.records;
  }

  private readSandbox(id: string): SandboxRecord | undefined {
    return this.sandboxes().get(id);
  }

  private writeSandbox(record: SandboxRecord): void {
    const records = this.sandboxes();
    writeJsonAtomic(sandboxFile(this.options.stateDir, record.id), record);
    records.set(record.id, record);
  }

  private mustSandbox(id: string): SandboxRecord {
    const s = this.readSandbox(id);
    if (!s) throw new RuntimeError('NotFound', `an error occurred when try to find sandbox: sandbox ${JSON.stringify(id)} not found`);
    return s;
  }

  private allSandboxes(): SandboxRecord[] {
    return [...this.sandboxes().values()];
  }

  runPodSandbox(config: PodSandboxConfig): Promise<string> {
    return this.sandboxLock.run(async () => {
      const hostNetwork = config.linux?.namespaceOptions?.network === 'NODE';
      let ip = '';
      if (!hostNetwork) {
        if (!this.cidr) throw new RuntimeError('Unavailable', 'the process runtime has no pod CIDR: only host-network sandboxes can run');
        const inUse = new Set(this.allSandboxes().map((s) => s.ip));
        const next = allocatePodIp(this.cidr, inUse);
        if (!next) throw new RuntimeError('Unavailable', `no free address left in pod CIDR ${this.podCIDR}`);
        ip = next;
      }
      const id = newId();
      if (config.logDirectory !== '') mkdirSync(config.logDirectory, { recursive: true });
      const record: SandboxRecord = {
        id,
        metadata: config.metadata,
        hostname: config.hostname,
        logDirectory: config.logDirectory,
        labels: config.labels,
        annotations: config.annotations,
        ...(config.linux?.namespaceOptions ? { namespaceOptions: config.linux.namespaceOptions } : {}),
        ip,
        state: 'SANDBOX_READY',
        createdAt: nowNanos().toString(),
      };
      this.writeSandbox(record);
      return id;
    });
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    const sandbox = this.readSandbox(podSandboxId);
    if (!sandbox) return;
    const containers = this.allContainerRecords().filter((c) => c.podSandboxId === podSandboxId);
    await Promise.all(containers.map((c) => this.stopContainer(c.id, 0)));
    if (sandbox.state !== 'SANDBOX_NOTREADY') this.writeSandbox({ ...sandbox, state: 'SANDBOX_NOTREADY' });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    const sandbox = this.readSandbox(podSandboxId);
    if (!sandbox) return;
    await this.stopPodSandbox(podSandboxId);
    for (const c of this.allContainerRecords().filter((r) => r.podSandboxId === podSandboxId)) {
      await this.removeContainer(c.id);
    }
    rmSync(join(sandboxesDir(this.options.stateDir), podSandboxId), { recursive: true, force: true });
    this.sandboxes().delete(podSandboxId);
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const s = this.mustSandbox(podSandboxId);
    return {
      id: s.id,
      metadata: s.metadata,
      state: s.state,
      createdAt: BigInt(s.createdAt),
      network: { ip: s.ip, additionalIps: [] },
      labels: s.labels,
      annotations: s.annotations,
    };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    return this.allSandboxes()
      .filter((s) => (filter?.id === undefined || s.id === filter.id) && (filter?.state === undefined || s.state === filter.state))
      .filter((s) => matchesLabels(s.labels, filter?.labelSelector))
      .sort((a, b) => compareDecimal(a.createdAt, b.createdAt))
      .map((s) => ({ id: s.id, metadata: s.metadata, state: s.state, createdAt: BigInt(s.createdAt), labels: s.labels, annotations: s.annotations }));
  }

  // ---- containers ----------------------------------------------------------

  /** A container's record never changes once written (its state is the shim's state.json: readShimState). */
  private containers(): Map<string, ContainerRecord> {
    this.containerListing = listRecords(this.containersDir, (id) => containerFile(containerDir(this.options.stateDir, id)), this.containerListing);
    return this.containerListing.records;
  }

  private readContainer(id: string): ContainerRecord | undefined {
    return this.containers().get(id);
  }

  private allContainerRecords(): ContainerRecord[] {
    return [...this.containers().values()];
  }

  /**
   * The shim's state.json, which the shim (not the runtime) writes: once
   * when the container starts and once when it exits, each time as a new
   * file renamed over the last. A recorded exit is final and kept without
   * looking again; otherwise one stat tells whether the file is still the
   * version last read (same inode, modification time and size: a file
   * renamed over it has another inode), and only a new version is read.
   */
  private readShimState(id: string): ShimState | undefined {
    const cached = this.shimStates.get(id);
    if (cached !== undefined && cached.state.finishedAt !== undefined) return cached.state;
    const file = cached?.file ?? shimStateFile(containerDir(this.options.stateDir, id));
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) {
      this.shimStates.delete(id);
      return undefined;
    }
    if (cached !== undefined && cached.ino === stat.ino && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.state;
    // Replaced after the stat: the next call sees another inode and reads it again.
    const state = readJsonIfExists<ShimState>(file);
    if (state === undefined) this.shimStates.delete(id);
    else this.shimStates.set(id, { state, file, ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size });
    return state;
  }

  private view(record: ContainerRecord): ContainerView {
    let shim = this.readShimState(record.id);
    const base = { record, shim, startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: '', message: '' };
    if (!shim) return { ...base, state: 'CONTAINER_CREATED' };
    if (shim.finishedAt === undefined && !isAlive(shim.shimPid)) {
      // The shim may have finished between the two reads; otherwise it was killed.
      shim = this.readShimState(record.id) ?? shim;
      if (shim.finishedAt === undefined) {
        return {
          ...base,
          state: 'CONTAINER_EXITED',
          startedAt: BigInt(shim.startedAt),
          exitCode: 255,
          reason: 'Error',
          message: 'the container shim is gone without recording an exit',
        };
      }
    }
    if (shim.startError !== undefined) {
      return { ...base, state: 'CONTAINER_EXITED', exitCode: 128, reason: 'StartError', message: shim.startError, finishedAt: BigInt(shim.finishedAt ?? '0') };
    }
    if (shim.finishedAt === undefined) return { ...base, state: 'CONTAINER_RUNNING', startedAt: BigInt(shim.startedAt) };
    const exitCode = shim.exitCode ?? 255;
    return {
      ...base,
      state: 'CONTAINER_EXITED',
      startedAt: BigInt(shim.startedAt),
      finishedAt: BigInt(shim.finishedAt),
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
    };
  }

  private mustContainer(id: string): ContainerView {
    // A container last seen running (what probes ask about every period) needs no look at the containers
    // directory: removing it removes its state.json too, which view() looks at anyway.
    const shim = this.shimStates.get(id);
    const known = shim !== undefined && shim.state.finishedAt === undefined ? this.containerListing?.records.get(id) : undefined;
    if (known !== undefined) {
      const view = this.view(known);
      if (view.shim !== undefined) return view;
    }
    const record = this.readContainer(id);
    if (!record) throw new RuntimeError('NotFound', `an error occurred when try to find container ${JSON.stringify(id)}: not found`);
    return this.view(record);
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const sandbox = this.mustSandbox(podSandboxId);
    if (sandbox.state !== 'SANDBOX_READY') {
      throw new RuntimeError('InvalidArgument', `sandbox ${podSandboxId} is not ready (${sandbox.state})`);
    }
    const clash = this.allContainerRecords().find(
      (c) => c.podSandboxId === podSandboxId && c.metadata.name === config.metadata.name && c.metadata.attempt === config.metadata.attempt,
    );
    if (clash) {
      throw new RuntimeError('InvalidArgument', `the container name ${config.metadata.name} (attempt ${config.metadata.attempt}) is already in use by ${clash.id}`);
    }
    const image = await this.images.resolve(config.image);
    if (!image && this.options.missingImages === 'reject') {
      throw new RuntimeError('NotFound', `failed to get image ${JSON.stringify(config.image)}: not found`);
    }
    const argv = resolveArgv(config, image);
    if (argv.length === 0) throw new RuntimeError('InvalidArgument', 'no command specified');
    const workingDir = config.workingDir || image?.config.workingDir || '/';
    if (!isAbsolute(workingDir)) throw new RuntimeError('InvalidArgument', `working directory ${JSON.stringify(workingDir)} is not absolute`);
    const logDirectory = sandboxConfig.logDirectory || sandbox.logDirectory;
    const id = newId();
    const nice = niceForCpuShares(config.linux?.resources?.cpuShares);
    const record: ContainerRecord = {
      id,
      podSandboxId,
      metadata: { name: config.metadata.name, attempt: config.metadata.attempt },
      image: config.image,
      imageRef: image?.id ?? '',
      labels: config.labels,
      annotations: config.annotations,
      mounts: config.mounts,
      logPath: config.logPath === '' || logDirectory === '' ? '' : join(logDirectory, config.logPath),
      argv,
      env: withTerminationMessageEnv(containerEnv(config.envs, image, sandbox.hostname), config),
      workingDir,
      stdin: config.stdin,
      stdinOnce: config.stdinOnce,
      tty: config.tty,
      createdAt: nowNanos().toString(),
      ...(nice > 0 ? { nice } : {}),
    };
    const records = this.containers();
    writeJsonAtomic(containerFile(containerDir(this.options.stateDir, id)), record);
    records.set(id, record);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const view = this.mustContainer(containerId);
    if (view.state !== 'CONTAINER_CREATED' || this.starting.has(containerId)) {
      throw new RuntimeError('InvalidArgument', `container ${containerId} is in ${view.state} state, not CONTAINER_CREATED`);
    }
    this.starting.add(containerId);
    try {
      await this.spawnShim(containerId);
    } finally {
      this.starting.delete(containerId);
    }
  }

  private async spawnShim(containerId: string): Promise<void> {
    const dir = containerDir(this.options.stateDir, containerId);
    const timeoutMs = this.options.shimStartTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RuntimeError('DeadlineExceeded', `the shim daemon did not report the start of container ${containerId} in time`)), timeoutMs);
    });
    try {
      await Promise.race([this.shims.start(dir), timedOut]);
    } catch (e: unknown) {
      if (e instanceof RuntimeError) throw e;
      throw new RuntimeError('Unknown', `failed to start container ${containerId}: ${e instanceof Error ? e.message : String(e)} (see ${shimLogFile(dir)})`);
    } finally {
      clearTimeout(timer);
    }
    const state = this.readShimState(containerId);
    if (state?.startError !== undefined) throw new RuntimeError('Unknown', `failed to start container ${containerId}: ${state.startError}`);
    if (state === undefined) throw new RuntimeError('Unknown', `the shim daemon reported container ${containerId} started but recorded no state`);
  }

  private pause(ms = this.pollMs): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Waits until the container has exited; false when `ms` passed first. */
  private async waitExited(id: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const record = this.readContainer(id);
      if (!record || this.view(record).state !== 'CONTAINER_RUNNING') return true;
      if (Date.now() >= deadline) return false;
      await this.pause();
    }
  }

  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    const record = this.readContainer(containerId);
    if (!record) return;
    const view = this.view(record);
    if (view.state !== 'CONTAINER_RUNNING' || !view.shim) return;
    const pgid = view.shim.pid;
    if (timeoutSeconds > 0) {
      killGroup(pgid, 'SIGTERM');
      if (await this.waitExited(containerId, timeoutSeconds * 1000)) return;
    }
    killGroup(pgid, 'SIGKILL');
    if (!(await this.waitExited(containerId, KILL_WAIT_MS))) {
      throw new RuntimeError('DeadlineExceeded', `container ${containerId} did not exit after SIGKILL`);
    }
  }

  async removeContainer(containerId: string): Promise<void> {
    const record = this.readContainer(containerId);
    if (!record) return;
    await this.stopContainer(containerId, 0);
    rmSync(containerDir(this.options.stateDir, containerId), { recursive: true, force: true });
    this.containers().delete(containerId);
    this.shimStates.delete(containerId);
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    // Only the containers the filter's record fields select have their shim state read.
    return this.allContainerRecords()
      .filter((r) => filter?.id === undefined || r.id === filter.id)
      .filter((r) => filter?.podSandboxId === undefined || r.podSandboxId === filter.podSandboxId)
      .filter((r) => matchesLabels(r.labels, filter?.labelSelector))
      .map((r) => this.view(r))
      .filter((v) => filter?.state === undefined || v.state === filter.state)
      .sort((a, b) => compareDecimal(a.record.createdAt, b.record.createdAt))
      .map((v) => ({
        id: v.record.id,
        podSandboxId: v.record.podSandboxId,
        metadata: v.record.metadata,
        image: v.record.image,
        imageRef: v.record.imageRef,
        state: v.state,
        createdAt: BigInt(v.record.createdAt),
        labels: v.record.labels,
        annotations: v.record.annotations,
      }));
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const v = this.mustContainer(containerId);
    return {
      id: v.record.id,
      metadata: v.record.metadata,
      state: v.state,
      createdAt: BigInt(v.record.createdAt),
      startedAt: v.startedAt,
      finishedAt: v.finishedAt,
      exitCode: v.exitCode,
      image: v.record.image,
      imageRef: v.record.imageRef,
      reason: v.reason,
      message: v.message,
      labels: v.record.labels,
      annotations: v.record.annotations,
      mounts: v.record.mounts,
      logPath: v.record.logPath,
    };
  }

  // ---- exec, attach, port-forward -----------------------------------------

  private runningContext(containerId: string): { view: ContainerView; ctx: ProcessContext } {
    const view = this.mustContainer(containerId);
    if (view.state !== 'CONTAINER_RUNNING') {
      throw new RuntimeError('Unknown', `container ${containerId} is not running (${view.state})`);
    }
    const env = Object.fromEntries(view.record.env.map((kv) => [kv.key, kv.value]));
    return { view, ctx: { env, cwd: view.record.workingDir } };
  }

  async execSync(containerId: string, cmd: readonly string[], timeoutSeconds: number): Promise<ExecSyncResult> {
    const { ctx } = this.runningContext(containerId);
    const [file, ...args] = cmd;
    if (file === undefined) throw new RuntimeError('InvalidArgument', 'exec: empty command');
    return new Promise<ExecSyncResult>((resolve, reject) => {
      const child = spawn(file, args, { cwd: ctx.cwd, env: ctx.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      let timedOut = false;
      const timer =
        timeoutSeconds > 0
          ? setTimeout(() => {
              timedOut = true;
              killGroup(child.pid ?? 0, 'SIGKILL');
            }, timeoutSeconds * 1000)
          : undefined;
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new RuntimeError('Unknown', `failed to exec in container: ${e.message}`, { cause: e }));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (timedOut) {
          reject(new RuntimeError('DeadlineExceeded', `failed to exec in container: timeout ${timeoutSeconds}s exceeded`));
          return;
        }
        resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exitCode: exitCodeOf(code, signal) });
      });
    });
  }

  async exec(request: ExecRequest): Promise<StreamSession> {
    const { ctx } = this.runningContext(request.containerId);
    return startExecSession(ctx, request);
  }

  async attach(request: StreamRequest): Promise<StreamSession> {
    const { view } = this.runningContext(request.containerId);
    if (request.stdin && !view.record.stdin) {
      throw new RuntimeError('InvalidArgument', `stdin is not enabled for container ${request.containerId}`);
    }
    const id = request.containerId;
    return startAttachSession({
      socketPath: attachSocketPath(id),
      stdin: request.stdin,
      stdout: request.stdout,
      stderr: request.stderr,
      tty: request.tty || view.record.tty,
      exitCodeAfterClose: () => {
        const record = this.readContainer(id);
        const v = record ? this.view(record) : undefined;
        return v?.state === 'CONTAINER_EXITED' ? v.exitCode : undefined;
      },
    });
  }

  async portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream> {
    const sandbox = this.mustSandbox(podSandboxId);
    const host = sandbox.ip || '127.0.0.1';
    const socket: Socket = connect({ host, port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (e) => reject(new RuntimeError('Unknown', `failed to connect to ${host}:${port} of sandbox ${podSandboxId}: ${e.message}`, { cause: e })));
    });
    return socket;
  }
}

/** CRI semantics (as containerd applies the image config): no command → the image's entrypoint, and its cmd when args are empty too. */
export function resolveArgv(config: Pick<ContainerConfig, 'command' | 'args'>, image: ResolvedImage | undefined): string[] {
  let command = [...config.command];
  let args = [...config.args];
  if (command.length === 0) {
    if (args.length === 0) args = [...(image?.config.cmd ?? [])];
    command = [...(image?.config.entrypoint ?? [])];
  }
  return [...command, ...args];
}

export function containerEnv(envs: readonly KeyValue[], image: ResolvedImage | undefined, hostname: string): KeyValue[] {
  const env = new Map<string, string>();
  for (const kv of image?.config.env ?? []) {
    const eq = kv.indexOf('=');
    if (eq > 0) env.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  for (const kv of envs) env.set(kv.key, kv.value);
  const path = env.get('PATH') ?? DEFAULT_PATH;
  env.set('PATH', image ? `${image.binDir}:${path}` : path);
  if (!env.has('HOSTNAME') && hostname !== '') env.set('HOSTNAME', hostname);
  if (!env.has('HOME')) env.set('HOME', '/root');
  return [...env].map(([key, value]) => ({ key, value }));
}

/**
 * The kubelet's annotation naming the container's terminationMessagePath; the
 * kubelet mounts a file of its own there (pod-workers/termination-message.ts).
 */
const TERMINATION_MESSAGE_PATH_ANNOTATION = 'io.kubernetes.container.terminationMessagePath';
/** Where a process container finds its termination-message file (mounts are not bound: see the README). */
export const TERMINATION_MESSAGE_PATH_ENV = 'K8TS_TERMINATION_MESSAGE_PATH';

/**
 * Mounts are not bound, so the file the kubelet mounts at terminationMessagePath
 * does not appear there: the process is told its host path instead, in
 * K8TS_TERMINATION_MESSAGE_PATH (unless the pod sets that variable itself).
 */
export function withTerminationMessageEnv(env: KeyValue[], config: Pick<ContainerConfig, 'annotations' | 'mounts'>): KeyValue[] {
  const path = config.annotations[TERMINATION_MESSAGE_PATH_ANNOTATION];
  const mount = path === undefined || path === '' ? undefined : config.mounts.find((m) => m.containerPath === path);
  if (mount === undefined || env.some((kv) => kv.key === TERMINATION_MESSAGE_PATH_ENV)) return env;
  return [...env, { key: TERMINATION_MESSAGE_PATH_ENV, value: mount.hostPath }];
}

/** The `process` ContainerRuntime of `--container-runtime`. */
export function newProcessRuntime(options: ProcessRuntimeOptions): ContainerRuntime & { readonly runtime: ProcessRuntimeService; readonly images: ProcessImageService } {
  const images = new ProcessImageService(options.imagesDir);
  const runtime = new ProcessRuntimeService(options, images);
  return { name: 'process', runtime, images, close: async () => runtime.close() };
}
