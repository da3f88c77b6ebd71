/**
 * The container runtime as the kubelet sees it: the CRI's two services
 * (runtime and image, k8s.io/cri-api runtime/v1) in TypeScript, camelCase.
 * Three implementations sit behind it, chosen by `k8ts kubelet
 * --container-runtime`:
 *
 * - `cri`: a gRPC client of containerd's CRI endpoint; each method is one RPC
 *   and these types map field by field onto the .proto messages.
 * - `process`: host processes, one shim per container (no isolation).
 * - `sim`: no processes at all, for thousands of simulated nodes.
 *
 * The kubelet never pulls images (no registry is reachable): ImageService has
 * no pull, and an absent image is `undefined` from imageStatus, as containerd
 * answers with an unset `image`.
 *
 * Contract for every implementation (checked by a conformance suite in
 * runtime/testing/, run by each implementation's test):
 * - Ids are opaque strings made by the runtime; a sandbox id and a container
 *   id never collide.
 * - Methods on an unknown id reject with a RuntimeError of code 'NotFound',
 *   except stop and remove, which are idempotent (CRI semantics: removing a
 *   missing container is success).
 * - A container's state moves Created → Running → Exited, never back; a
 *   restart is a new container with metadata.attempt + 1.
 * - Timestamps are nanoseconds since the epoch as bigint (CRI's int64).
 * - Logs: each container writes its stdout/stderr to `logPath` (absolute:
 *   sandbox logDirectory + container logPath) in the CRI log format, one
 *   line per write: `<RFC3339Nano> <stdout|stderr> <F|P> <text>`.
 * - State survives a kubelet restart: listing after the kubelet process is
 *   replaced returns the same sandboxes and containers with the same ids (the
 *   process runtime keeps them in shim processes and a state directory).
 */

/** Errors a runtime reports; `code` follows the gRPC status names containerd uses. */
export type RuntimeErrorCode = 'NotFound' | 'InvalidArgument' | 'DeadlineExceeded' | 'Unavailable' | 'Unknown';

export class RuntimeError extends Error {
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RuntimeError';
  }
}

export const isRuntimeNotFound = (e: unknown): boolean => e instanceof RuntimeError && e.code === 'NotFound';

export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

// ---- Versions and status -------------------------------------------------

export interface VersionInfo {
  /** CRI API version the runtime speaks ("v1"). */
  readonly runtimeApiVersion: string;
  readonly runtimeName: string;
  /** Not necessarily semver (containerd 1.6 on Debian says "1.6.20~ds1"). */
  readonly runtimeVersion: string;
}

export interface RuntimeCondition {
  /** 'RuntimeReady' or 'NetworkReady'. */
  readonly type: string;
  readonly status: boolean;
  readonly reason: string;
  readonly message: string;
}

export interface RuntimeStatus {
  readonly conditions: readonly RuntimeCondition[];
}

// ---- Pod sandboxes ---------------------------------------------------------

export interface PodSandboxMetadata {
  readonly name: string;
  readonly uid: string;
  readonly namespace: string;
  readonly attempt: number;
}

export interface DnsConfig {
  readonly servers: readonly string[];
  readonly searches: readonly string[];
  readonly options: readonly string[];
}

export interface PortMapping {
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly containerPort: number;
  readonly hostPort?: number;
  readonly hostIp?: string;
}

/** CRI NamespaceMode: POD shares with the sandbox, CONTAINER is the container's own, NODE is the host's. */
/** TARGET: the namespace of another container, `targetId` (an ephemeral container's targetContainerName). */
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface NamespaceOptions {
  readonly network: NamespaceMode;
  /** The kubelet sets CONTAINER unless shareProcessNamespace (CRI's default, POD, is not v1 semantics). */
  readonly pid: NamespaceMode;
  readonly ipc: NamespaceMode;
  /** The container whose namespace a TARGET mode names. */
  readonly targetId?: string;
}

export interface PodSandboxConfig {
  readonly metadata: PodSandboxMetadata;
  readonly hostname: string;
  /** Absolute directory of the pod's container logs (/…/pods/<ns>_<name>_<uid>). */
  readonly logDirectory: string;
  readonly dnsConfig?: DnsConfig;
  readonly portMappings: readonly PortMapping[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly linux?: {
    /** cgroupfs syntax, e.g. /kubepods/besteffort/pod<uid>. */
    readonly cgroupParent?: string;
    readonly namespaceOptions?: NamespaceOptions;
    readonly sysctls?: Readonly<Record<string, string>>;
  };
}

export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

export interface PodSandboxNetworkStatus {
  /** The pod's primary IP ('' for host-network pods; the kubelet then reports the node IP). */
  readonly ip: string;
  readonly additionalIps: readonly string[];
}

export interface PodSandboxStatus {
  readonly id: string;
  readonly metadata: PodSandboxMetadata;
  readonly state: PodSandboxState;
  readonly createdAt: bigint;
  readonly network?: PodSandboxNetworkStatus;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface PodSandbox {
  readonly id: string;
  readonly metadata: PodSandboxMetadata;
  readonly state: PodSandboxState;
  readonly createdAt: bigint;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface PodSandboxFilter {
  readonly id?: string;
  readonly state?: PodSandboxState;
  /** Every pair must match (CRI label_selector). */
  readonly labelSelector?: Readonly<Record<string, string>>;
}

// ---- Containers ------------------------------------------------------------

export interface ContainerMetadata {
  readonly name: string;
  /** 0 for the first container of this name in the sandbox, +1 per restart. */
  readonly attempt: number;
}

export interface Mount {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readonly: boolean;
}

export interface LinuxContainerResources {
  readonly cpuPeriod?: number;
  readonly cpuQuota?: number;
  readonly cpuShares?: number;
  readonly memoryLimitInBytes?: number;
  /** Negative values are clamped to 0 by containerd here (restrict_oom_score_adj). */
  readonly oomScoreAdj?: number;
}

export interface ContainerConfig {
  readonly metadata: ContainerMetadata;
  /** The image reference as the pod spec names it (the runtime resolves short names). */
  readonly image: string;
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly workingDir?: string;
  readonly envs: readonly KeyValue[];
  readonly mounts: readonly Mount[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** Relative to the sandbox's logDirectory, e.g. `<container>/<attempt>.log`. */
  readonly logPath: string;
  readonly stdin: boolean;
  readonly stdinOnce: boolean;
  readonly tty: boolean;
  readonly linux?: {
    readonly resources?: LinuxContainerResources;
    readonly namespaceOptions?: NamespaceOptions;
    readonly runAsUser?: number;
    readonly runAsGroup?: number;
    readonly privileged?: boolean;
    readonly readonlyRootfs?: boolean;
  };
}

export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface ContainerStatus {
  readonly id: string;
  readonly metadata: ContainerMetadata;
  readonly state: ContainerState;
  readonly createdAt: bigint;
  /** 0n until started. */
  readonly startedAt: bigint;
  /** 0n until exited. */
  readonly finishedAt: bigint;
  readonly exitCode: number;
  readonly image: string;
  /** The resolved image (digest or id); becomes status.containerStatuses[].imageID. */
  readonly imageRef: string;
  /** 'Completed' (exit 0), 'Error', 'OOMKilled', … as the runtime reports it. */
  readonly reason: string;
  readonly message: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly mounts: readonly Mount[];
  /** Absolute path of the container's log file. */
  readonly logPath: string;
}

export interface Container {
  readonly id: string;
  readonly podSandboxId: string;
  readonly metadata: ContainerMetadata;
  readonly image: string;
  readonly imageRef: string;
  readonly state: ContainerState;
  readonly createdAt: bigint;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface ContainerFilter {
  readonly id?: string;
  readonly state?: ContainerState;
  readonly podSandboxId?: string;
  readonly labelSelector?: Readonly<Record<string, string>>;
}

export interface ExecSyncResult {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number;
}

// ---- Streaming (exec, attach, port-forward) --------------------------------

/**
 * A live stream into a container, as the kubelet's server bridges it to the
 * client's WebSocket or SPDY channels. containerd hands out a URL of its own
 * streaming server instead; the cri implementation connects to that URL and
 * presents the same shape.
 */
export interface StreamSession {
  /** Present when the request asked for stdin. */
  readonly stdin?: NodeJS.WritableStream;
  readonly stdout?: NodeJS.ReadableStream;
  /** Absent with a tty (stderr is merged into stdout). */
  readonly stderr?: NodeJS.ReadableStream;
  /** Terminal size changes (channel 4 of the remotecommand protocol). */
  resize(size: { readonly width: number; readonly height: number }): void;
  /** Resolves with the exit code once the command (exec) or container (attach) ends or the session closes. */
  readonly exit: Promise<number>;
  /** End the session from the client side. */
  close(): void;
}

export interface StreamRequest {
  readonly containerId: string;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

export interface ExecRequest extends StreamRequest {
  readonly cmd: readonly string[];
}

// ---- The two services ------------------------------------------------------

export interface RuntimeService {
  version(): Promise<VersionInfo>;
  status(): Promise<RuntimeStatus>;
  /** CRI UpdateRuntimeConfig: the node's pod CIDR, once node IPAM has given it (pod sandboxes need it unless host-network). */
  updateRuntimeConfig(config: { readonly podCIDR: string }): Promise<void>;

  runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string): Promise<string>;
  /** Stops every container of the sandbox and releases its network; idempotent. */
  stopPodSandbox(podSandboxId: string): Promise<void>;
  /** Idempotent; the sandbox's containers go with it. */
  removePodSandbox(podSandboxId: string): Promise<void>;
  podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus>;
  listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]>;

  createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  /** SIGTERM, then SIGKILL after `timeoutSeconds`; resolves once exited; idempotent. */
  stopContainer(containerId: string, timeoutSeconds: number): Promise<void>;
  /** Idempotent. The log file stays (the kubelet removes logs itself). */
  removeContainer(containerId: string): Promise<void>;
  listContainers(filter?: ContainerFilter): Promise<Container[]>;
  containerStatus(containerId: string): Promise<ContainerStatus>;

  /** Run a command to completion (exec probes, exec hooks); rejects with 'DeadlineExceeded' past the timeout. */
  execSync(containerId: string, cmd: readonly string[], timeoutSeconds: number): Promise<ExecSyncResult>;
  exec(request: ExecRequest): Promise<StreamSession>;
  attach(request: StreamRequest): Promise<StreamSession>;
  /** A duplex byte stream to `port` inside the sandbox's network namespace. */
  portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream>;
}

export interface Image {
  /** Content id (the config digest, `sha256:…`). */
  readonly id: string;
  readonly repoTags: readonly string[];
  readonly repoDigests: readonly string[];
  readonly size: number;
  /** The image's user as a number when it is numeric (pause: 65535). */
  readonly uid?: number;
  readonly username?: string;
  /** Pinned images (the sandbox image) are never garbage-collected. */
  readonly pinned: boolean;
}

export interface ImageFsInfo {
  readonly mountpoint: string;
  readonly usedBytes: number;
  readonly inodesUsed: number;
}

export interface ImageService {
  listImages(): Promise<Image[]>;
  /** `undefined` when the image is not present (never an error, as containerd answers). */
  imageStatus(image: string): Promise<Image | undefined>;
  removeImage(image: string): Promise<void>;
  imageFsInfo(): Promise<ImageFsInfo[]>;
}

/** What `--container-runtime` selects: both services and a way to let go of their resources. */
export interface ContainerRuntime {
  readonly name: 'cri' | 'process' | 'sim';
  readonly runtime: RuntimeService;
  readonly images: ImageService;
  /** Release connections; never stops containers (they outlive the kubelet). */
  close(): Promise<void>;
}
