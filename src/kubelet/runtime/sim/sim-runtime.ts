/**
 * The sim container runtime: sandboxes and containers that "run" without any
 * process, as kwok's nodes do, so that one machine can host thousands of
 * simulated nodes for scale tests. Everything lives in memory (a SimState);
 * a state handed to a second runtime plays the part of a restarted kubelet's
 * runtime (same ids, same states).
 *
 * - A container runs from startContainer until it is stopped, or until the
 *   exit its program asks for (sim-program.ts: annotations or simple
 *   commands). Exits are computed from the clock when read, so thousands of
 *   containers cost no timers.
 * - Start latency (options, or an annotation) delays startContainer's answer.
 * - Each start writes one line in the CRI log format to the container's log.
 * - execSync answers at once with empty output and exit code 0 (or the
 *   program's exec-exit-code); exec, attach and portForward reject with a
 *   RuntimeError: there is nothing to stream.
 * - Ids are deterministic: sha256 of (idSeed, kind, sequence number), 64 hex
 *   digits like containerd's.
 * - Pod IPs come from the pod CIDR (lowest free from .2, as host-local does);
 *   host-network sandboxes have none.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxMetadata,
  type PodSandboxStatus,
  type RuntimeService,
  type RuntimeStatus,
  type StreamRequest,
  type StreamSession,
  type VersionInfo,
} from '../interface.js';
import { formatRfc3339Nano, nowNanos } from '../clock.js';
import { formatIpv4, parseIpv4, parseIpv4Cidr, type Ipv4Cidr } from '../pod-ip-allocator.js';
import { SimImageService } from './sim-images.js';
import { simProgramOf, type SimProgram } from './sim-program.js';

export const SIM_RUNTIME_NAME = 'k8ts-sim';
export const SIM_RUNTIME_VERSION = '0.1.0';

interface SandboxRecord {
  readonly id: string;
  readonly metadata: PodSandboxMetadata;
  readonly logDirectory: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly ip: string;
  readonly createdAt: bigint;
  state: PodSandbox['state'];
}

interface ContainerRecord {
  readonly id: string;
  readonly podSandboxId: string;
  readonly config: ContainerConfig;
  readonly imageRef: string;
  readonly logPath: string;
  readonly program: SimProgram;
  readonly createdAt: bigint;
  /** True between the start call and its (possibly delayed) answer. */
  starting: boolean;
  startedAt: bigint;
  /** Set when stopped or failed to start; an exit the program asks for is derived from startedAt instead. */
  exited?: { readonly at: bigint; readonly code: number; readonly reason: string; readonly message: string };
}

/** Everything a sim runtime knows; share it between runtimes to simulate a kubelet restart. */
export class SimState {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  /** Addresses (as numbers) held by sandboxes. */
  readonly ipsInUse = new Set<number>();
  nextId = 0;
  constructor(readonly images: SimImageService) {}
}

export function newSimState(options: { readonly images?: readonly string[] } = {}): SimState {
  return new SimState(new SimImageService(options.images));
}

export interface SimRuntimeOptions {
  /** The state to use (default: a new one); a second runtime given the same state adopts everything. */
  readonly state?: SimState;
  /** The images present, when a new state is made (default: every image). */
  readonly images?: readonly string[];
  /** The node's pod CIDR; without it only host-network sandboxes can run. */
  readonly podCIDR?: string;
  /** How long startContainer takes (ms, default 0). */
  readonly startLatencyMs?: number;
  /** How long runPodSandbox takes (ms, default 0). */
  readonly sandboxLatencyMs?: number;
  /** Seed of the deterministic ids (default 'sim'); give each simulated node its own. */
  readonly idSeed?: string;
  /** Write a CRI log line per container start (default true). */
  readonly writeLogs?: boolean;
  /** Nanoseconds since the epoch (default: the wall clock). */
  readonly clock?: () => bigint;
}

const MS = 1_000_000n;
const matchesLabels = (labels: Readonly<Record<string, string>>, selector?: Readonly<Record<string, string>>): boolean =>
  selector === undefined || Object.entries(selector).every(([k, v]) => labels[k] === v);
const delay = (ms: number): Promise<void> | undefined => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined);
const noStreaming = (what: string): RuntimeError =>
  new RuntimeError('Unknown', `the sim runtime runs no processes: ${what} is not supported`);

interface ContainerView {
  readonly state: ContainerState;
  readonly startedAt: bigint;
  readonly finishedAt: bigint;
  readonly exitCode: number;
  readonly reason: string;
  readonly message: string;
}

export class SimRuntimeService implements RuntimeService {
  private cidr: Ipv4Cidr | undefined;
  private podCIDR: string | undefined;
  private readonly clock: () => bigint;
  private readonly idSeed: string;

  constructor(
    readonly state: SimState,
    private readonly options: SimRuntimeOptions,
  ) {
    this.clock = options.clock ?? nowNanos;
    this.idSeed = options.idSeed ?? 'sim';
    if (options.podCIDR) this.setPodCIDR(options.podCIDR);
  }

  private setPodCIDR(text: string): void {
    try {
      this.cidr = parseIpv4Cidr(text);
    } catch (e: unknown) {
      throw new RuntimeError('InvalidArgument', e instanceof Error ? e.message : String(e));
    }
    this.podCIDR = text;
  }

  private newId(kind: 'sandbox' | 'container'): string {
    return createHash('sha256').update(`${this.idSeed}\0${kind}\0${this.state.nextId++}`).digest('hex');
  }

  async version(): Promise<VersionInfo> {
    return { runtimeApiVersion: 'v1', runtimeName: SIM_RUNTIME_NAME, runtimeVersion: SIM_RUNTIME_VERSION };
  }

  async status(): Promise<RuntimeStatus> {
    return {
      conditions: [
        { type: 'RuntimeReady', status: true, reason: '', message: '' },
        this.cidr
          ? { type: 'NetworkReady', status: true, reason: '', message: '' }
          : { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'the sim runtime has no pod CIDR: only host-network pods can run' },
      ],
    };
  }

  async updateRuntimeConfig(config: { readonly podCIDR: string }): Promise<void> {
    if (config.podCIDR === '' || config.podCIDR === this.podCIDR) return;
    this.setPodCIDR(config.podCIDR);
  }

  // ---- sandboxes -----------------------------------------------------------

  private allocateIp(): string {
    if (!this.cidr) throw new RuntimeError('Unavailable', 'the sim runtime has no pod CIDR: only host-network sandboxes can run');
    const size = 2 ** (32 - this.cidr.prefixLength);
    for (let n = this.cidr.network + 2; n < this.cidr.network + size - 1; n++) {
      if (!this.state.ipsInUse.has(n)) {
        this.state.ipsInUse.add(n);
        return formatIpv4(n);
      }
    }
    throw new RuntimeError('Unavailable', `no free address left in pod CIDR ${this.podCIDR}`);
  }

  private sandbox(id: string): SandboxRecord {
    const s = this.state.sandboxes.get(id);
    if (!s) throw new RuntimeError('NotFound', `an error occurred when try to find sandbox: sandbox ${JSON.stringify(id)} not found`);
    return s;
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    await delay(this.options.sandboxLatencyMs ?? 0);
    const ip = config.linux?.namespaceOptions?.network === 'NODE' ? '' : this.allocateIp();
    const id = this.newId('sandbox');
    this.state.sandboxes.set(id, {
      id,
      metadata: config.metadata,
      logDirectory: config.logDirectory,
      labels: config.labels,
      annotations: config.annotations,
      ip,
      createdAt: this.clock(),
      state: 'SANDBOX_READY',
    });
    return id;
  }

  private containersOf(podSandboxId: string): ContainerRecord[] {
    return [...this.state.containers.values()].filter((c) => c.podSandboxId === podSandboxId);
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    const s = this.state.sandboxes.get(podSandboxId);
    if (!s) return;
    for (const c of this.containersOf(podSandboxId)) this.stopNow(c);
    s.state = 'SANDBOX_NOTREADY';
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    const s = this.state.sandboxes.get(podSandboxId);
    if (!s) return;
    for (const c of this.containersOf(podSandboxId)) this.state.containers.delete(c.id);
    const ip = parseIpv4(s.ip);
    if (ip !== undefined) this.state.ipsInUse.delete(ip);
    this.state.sandboxes.delete(podSandboxId);
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const s = this.sandbox(podSandboxId);
    return { ...this.listed(s), network: { ip: s.ip, additionalIps: [] } };
  }

  private listed(s: SandboxRecord): PodSandbox {
    return { id: s.id, metadata: s.metadata, state: s.state, createdAt: s.createdAt, labels: s.labels, annotations: s.annotations };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const candidates = filter?.id !== undefined ? [this.state.sandboxes.get(filter.id)].filter((s) => s !== undefined) : [...this.state.sandboxes.values()];
    return candidates
      .filter((s) => (filter?.state === undefined || s.state === filter.state) && matchesLabels(s.labels, filter?.labelSelector))
      .map((s) => this.listed(s));
  }

  // ---- containers ----------------------------------------------------------

  private container(id: string): ContainerRecord {
    const c = this.state.containers.get(id);
    if (!c) throw new RuntimeError('NotFound', `an error occurred when try to find container ${JSON.stringify(id)}: not found`);
    return c;
  }

  private view(c: ContainerRecord): ContainerView {
    const none = { startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: '', message: '' };
    if (c.exited) {
      const { at, code, reason, message } = c.exited;
      return { state: 'CONTAINER_EXITED', startedAt: c.startedAt, finishedAt: at, exitCode: code, reason, message };
    }
    if (c.startedAt === 0n || c.starting) return { ...none, state: 'CONTAINER_CREATED' };
    const exit = c.program.exit;
    if (exit) {
      const at = c.startedAt + BigInt(exit.afterMs) * MS;
      if (this.clock() >= at) {
        return { state: 'CONTAINER_EXITED', startedAt: c.startedAt, finishedAt: at, exitCode: exit.code, reason: exit.code === 0 ? 'Completed' : 'Error', message: '' };
      }
    }
    return { ...none, state: 'CONTAINER_RUNNING', startedAt: c.startedAt };
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const sandbox = this.sandbox(podSandboxId);
    if (sandbox.state !== 'SANDBOX_READY') throw new RuntimeError('InvalidArgument', `sandbox ${podSandboxId} is not ready (${sandbox.state})`);
    const clash = this.containersOf(podSandboxId).find((c) => c.config.metadata.name === config.metadata.name && c.config.metadata.attempt === config.metadata.attempt);
    if (clash) {
      throw new RuntimeError('InvalidArgument', `the container name ${config.metadata.name} (attempt ${config.metadata.attempt}) is already in use by ${clash.id}`);
    }
    if (!this.state.images.has(config.image)) {
      throw new RuntimeError('NotFound', `failed to get image ${JSON.stringify(config.image)}: not found`);
    }
    let program: SimProgram;
    try {
      program = simProgramOf({
        containerName: config.metadata.name,
        argv: [...config.command, ...config.args],
        containerAnnotations: config.annotations,
        sandboxAnnotations: sandbox.annotations,
      });
    } catch (e: unknown) {
      throw new RuntimeError('InvalidArgument', e instanceof Error ? e.message : String(e));
    }
    const logDirectory = sandboxConfig.logDirectory || sandbox.logDirectory;
    const id = this.newId('container');
    this.state.containers.set(id, {
      id,
      podSandboxId,
      config,
      imageRef: this.state.images.idOf(config.image),
      logPath: config.logPath === '' || logDirectory === '' ? '' : join(logDirectory, config.logPath),
      program,
      createdAt: this.clock(),
      starting: false,
      startedAt: 0n,
    });
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const c = this.container(containerId);
    const state = this.view(c).state;
    if (state !== 'CONTAINER_CREATED' || c.starting) {
      throw new RuntimeError('InvalidArgument', `container ${containerId} is in ${state} state, not CONTAINER_CREATED`);
    }
    c.starting = true;
    try {
      await delay(c.program.startLatencyMs ?? this.options.startLatencyMs ?? 0);
      const now = this.clock();
      if (c.program.startError !== undefined) {
        c.exited = { at: now, code: 128, reason: 'StartError', message: c.program.startError };
        throw new RuntimeError('Unknown', `failed to start container ${containerId}: ${c.program.startError}`);
      }
      c.startedAt = now;
      if (c.exited) return; // stopped or removed while starting
      await this.writeStartLog(c, now);
    } finally {
      c.starting = false;
    }
  }

  private async writeStartLog(c: ContainerRecord, at: bigint): Promise<void> {
    if (this.options.writeLogs === false || c.logPath === '') return;
    const exit = c.program.exit;
    const plan = exit ? `, exits with code ${exit.code} after ${exit.afterMs} ms` : '';
    const line = `${formatRfc3339Nano(at)} stdout F sim: container ${c.config.metadata.name} started (attempt ${c.config.metadata.attempt})${plan}\n`;
    await mkdir(dirname(c.logPath), { recursive: true });
    await appendFile(c.logPath, line);
  }

  /** A running (or starting) container exits now with 0 (as one that honours SIGTERM). */
  private stopNow(c: ContainerRecord): void {
    const view = this.view(c);
    if (view.state === 'CONTAINER_EXITED') {
      if (!c.exited) c.exited = { at: view.finishedAt, code: view.exitCode, reason: view.reason, message: view.message };
      return;
    }
    if (view.state === 'CONTAINER_CREATED' && !c.starting) return;
    c.exited = { at: this.clock(), code: 0, reason: 'Completed', message: '' };
  }

  async stopContainer(containerId: string): Promise<void> {
    const c = this.state.containers.get(containerId);
    if (c) this.stopNow(c);
  }

  async removeContainer(containerId: string): Promise<void> {
    const c = this.state.containers.get(containerId);
    if (!c) return;
    this.stopNow(c);
    this.state.containers.delete(containerId);
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const candidates = filter?.id !== undefined ? [this.state.containers.get(filter.id)].filter((c) => c !== undefined) : [...this.state.containers.values()];
    const out: Container[] = [];
    for (const c of candidates) {
      if (filter?.podSandboxId !== undefined && c.podSandboxId !== filter.podSandboxId) continue;
      if (!matchesLabels(c.config.labels, filter?.labelSelector)) continue;
      const state = this.view(c).state;
      if (filter?.state !== undefined && state !== filter.state) continue;
      out.push({
        id: c.id,
        podSandboxId: c.podSandboxId,
        metadata: c.config.metadata,
        image: c.config.image,
        imageRef: c.imageRef,
        state,
        createdAt: c.createdAt,
        labels: c.config.labels,
        annotations: c.config.annotations,
      });
    }
    return out;
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const c = this.container(containerId);
    const v = this.view(c);
    return {
      id: c.id,
      metadata: c.config.metadata,
      state: v.state,
      createdAt: c.createdAt,
      startedAt: v.startedAt,
      finishedAt: v.finishedAt,
      exitCode: v.exitCode,
      image: c.config.image,
      imageRef: c.imageRef,
      reason: v.reason,
      message: v.message,
      labels: c.config.labels,
      annotations: c.config.annotations,
      mounts: c.config.mounts,
      logPath: c.logPath,
    };
  }

  // ---- exec, attach, port-forward -----------------------------------------

  async execSync(containerId: string, cmd: readonly string[]): Promise<ExecSyncResult> {
    const c = this.container(containerId);
    const state = this.view(c).state;
    if (state !== 'CONTAINER_RUNNING') throw new RuntimeError('Unknown', `container ${containerId} is not running (${state})`);
    if (cmd.length === 0) throw new RuntimeError('InvalidArgument', 'exec: empty command');
    return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: c.program.execExitCode };
  }

  async exec(request: ExecRequest): Promise<StreamSession> {
    this.container(request.containerId);
    throw noStreaming('exec');
  }

  async attach(request: StreamRequest): Promise<StreamSession> {
    this.container(request.containerId);
    throw noStreaming('attach');
  }

  async portForward(podSandboxId: string): Promise<NodeJS.ReadWriteStream> {
    this.sandbox(podSandboxId);
    throw noStreaming('port-forward');
  }
}

/** The `sim` ContainerRuntime of `--container-runtime`. */
export function newSimRuntime(options: SimRuntimeOptions = {}): ContainerRuntime & { readonly runtime: SimRuntimeService; readonly images: SimImageService } {
  const state = options.state ?? newSimState(options.images ? { images: options.images } : {});
  const runtime = new SimRuntimeService(state, options);
  return { name: 'sim', runtime, images: state.images, close: async () => undefined };
}
