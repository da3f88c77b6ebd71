/**
 * The contract's types (interface.ts, camelCase, bigint nanoseconds) to and
 * from the CRI messages as proto-loader presents them (cri-proto.ts: snake
 * case, int64 as decimal strings, enums as names, absent messages null).
 * One function per message; field by field.
 */
import type {
  Container,
  ContainerConfig,
  ContainerStatus,
  Image,
  ImageFsInfo,
  Mount,
  NamespaceMode,
  NamespaceOptions,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxMetadata,
  PodSandboxStatus,
  RuntimeStatus,
  VersionInfo,
} from '../interface.js';

type Labels = Readonly<Record<string, string>>;
/** An int64 as proto-loader gives it (longs: String) or as we send it. */
type Int64 = string | number;

export interface WireNamespaceOption {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
  target_id?: string;
}
export interface WirePodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}
export interface WirePodSandboxConfig {
  metadata: WirePodSandboxMetadata;
  hostname: string;
  log_directory: string;
  dns_config: { servers: string[]; searches: string[]; options: string[] } | null;
  port_mappings: { protocol: string; container_port: number; host_port: number; host_ip: string }[];
  labels: Labels;
  annotations: Labels;
  linux: { cgroup_parent: string; security_context: { namespace_options: WireNamespaceOption | null } | null; sysctls: Labels } | null;
}
export interface WireContainerConfig {
  metadata: { name: string; attempt: number };
  image: { image: string };
  command: string[];
  args: string[];
  working_dir: string;
  envs: { key: string; value: string }[];
  mounts: { container_path: string; host_path: string; readonly: boolean }[];
  labels: Labels;
  annotations: Labels;
  log_path: string;
  stdin: boolean;
  stdin_once: boolean;
  tty: boolean;
  linux: {
    resources: { cpu_period: Int64; cpu_quota: Int64; cpu_shares: Int64; memory_limit_in_bytes: Int64; oom_score_adj: Int64 } | null;
    security_context: {
      privileged: boolean;
      namespace_options: WireNamespaceOption;
      run_as_user: { value: Int64 } | null;
      run_as_group: { value: Int64 } | null;
      readonly_rootfs: boolean;
    };
  };
}
export interface WirePodSandbox {
  id: string;
  metadata: WirePodSandboxMetadata | null;
  state: PodSandbox['state'];
  created_at: Int64;
  labels: Labels;
  annotations: Labels;
}
export interface WirePodSandboxStatus extends WirePodSandbox {
  network: { ip: string; additional_ips: { ip: string }[] } | null;
}
export interface WireContainer {
  id: string;
  pod_sandbox_id: string;
  metadata: { name: string; attempt: number } | null;
  image: { image: string } | null;
  image_ref: string;
  state: Container['state'];
  created_at: Int64;
  labels: Labels;
  annotations: Labels;
}
export interface WireContainerStatus {
  id: string;
  metadata: { name: string; attempt: number } | null;
  state: ContainerStatus['state'];
  created_at: Int64;
  started_at: Int64;
  finished_at: Int64;
  exit_code: number;
  image: { image: string } | null;
  image_ref: string;
  reason: string;
  message: string;
  labels: Labels;
  annotations: Labels;
  mounts: { container_path: string; host_path: string; readonly: boolean }[];
  log_path: string;
}
export interface WireImage {
  id: string;
  repo_tags: string[];
  repo_digests: string[];
  size: Int64;
  uid: { value: Int64 } | null;
  username: string;
  pinned: boolean;
}
export interface WireFilesystemUsage {
  fs_id: { mountpoint: string } | null;
  used_bytes: { value: Int64 } | null;
  inodes_used: { value: Int64 } | null;
}

const nanos = (v: Int64 | null | undefined): bigint => (v === null || v === undefined || v === '' ? 0n : BigInt(v));
const num = (v: Int64 | null | undefined): number => (v === null || v === undefined || v === '' ? 0 : Number(v));
const plain = (m: Labels | null | undefined): Record<string, string> => ({ ...(m ?? {}) });

function fromMetadata(m: WirePodSandboxMetadata | null): PodSandboxMetadata {
  return { name: m?.name ?? '', uid: m?.uid ?? '', namespace: m?.namespace ?? '', attempt: m?.attempt ?? 0 };
}

function toNamespaceOption(o: NamespaceOptions): WireNamespaceOption {
  return { network: o.network, pid: o.pid, ipc: o.ipc, ...(o.targetId !== undefined ? { target_id: o.targetId } : {}) };
}

/**
 * A host-network sandbox shares the node's UTS namespace, so it gets no
 * hostname of its own (upstream's kubelet leaves it empty; runc refuses to set
 * one without a private UTS namespace).
 */
export function toPodSandboxConfig(c: PodSandboxConfig): WirePodSandboxConfig {
  const hostNetwork = c.linux?.namespaceOptions?.network === 'NODE';
  return {
    metadata: { name: c.metadata.name, uid: c.metadata.uid, namespace: c.metadata.namespace, attempt: c.metadata.attempt },
    hostname: hostNetwork ? '' : c.hostname,
    log_directory: c.logDirectory,
    dns_config: c.dnsConfig ? { servers: [...c.dnsConfig.servers], searches: [...c.dnsConfig.searches], options: [...c.dnsConfig.options] } : null,
    port_mappings: c.portMappings.map((p) => ({ protocol: p.protocol, container_port: p.containerPort, host_port: p.hostPort ?? 0, host_ip: p.hostIp ?? '' })),
    labels: c.labels,
    annotations: c.annotations,
    linux: c.linux
      ? {
          cgroup_parent: c.linux.cgroupParent ?? '',
          security_context: c.linux.namespaceOptions ? { namespace_options: toNamespaceOption(c.linux.namespaceOptions) } : null,
          sysctls: c.linux.sysctls ?? {},
        }
      : null,
  };
}

/**
 * The container's namespaces: as given, or else the sandbox's network with a
 * PID namespace of its own (v1 pod semantics; the CRI's zero value, POD, would
 * show the pause process as PID 1) and the pod's IPC.
 */
export function containerNamespaces(c: ContainerConfig, sandbox: PodSandboxConfig): NamespaceOptions {
  return c.linux?.namespaceOptions ?? { network: sandbox.linux?.namespaceOptions?.network === 'NODE' ? 'NODE' : 'POD', pid: 'CONTAINER', ipc: 'POD' };
}

export function toContainerConfig(c: ContainerConfig, sandbox: PodSandboxConfig): WireContainerConfig {
  const r = c.linux?.resources;
  return {
    metadata: { name: c.metadata.name, attempt: c.metadata.attempt },
    image: { image: c.image },
    command: [...c.command],
    args: [...c.args],
    working_dir: c.workingDir ?? '',
    envs: c.envs.map((e) => ({ key: e.key, value: e.value })),
    mounts: c.mounts.map((m) => ({ container_path: m.containerPath, host_path: m.hostPath, readonly: m.readonly })),
    labels: c.labels,
    annotations: c.annotations,
    log_path: c.logPath,
    stdin: c.stdin,
    stdin_once: c.stdinOnce,
    tty: c.tty,
    linux: {
      resources: r
        ? {
            cpu_period: r.cpuPeriod ?? 0,
            cpu_quota: r.cpuQuota ?? 0,
            cpu_shares: r.cpuShares ?? 0,
            memory_limit_in_bytes: r.memoryLimitInBytes ?? 0,
            oom_score_adj: r.oomScoreAdj ?? 0,
          }
        : null,
      security_context: {
        privileged: c.linux?.privileged ?? false,
        namespace_options: toNamespaceOption(containerNamespaces(c, sandbox)),
        run_as_user: c.linux?.runAsUser !== undefined ? { value: c.linux.runAsUser } : null,
        run_as_group: c.linux?.runAsGroup !== undefined ? { value: c.linux.runAsGroup } : null,
        readonly_rootfs: c.linux?.readonlyRootfs ?? false,
      },
    },
  };
}

export function fromPodSandbox(s: WirePodSandbox): PodSandbox {
  return { id: s.id, metadata: fromMetadata(s.metadata), state: s.state, createdAt: nanos(s.created_at), labels: plain(s.labels), annotations: plain(s.annotations) };
}

export function fromPodSandboxStatus(s: WirePodSandboxStatus): PodSandboxStatus {
  return {
    ...fromPodSandbox(s),
    ...(s.network ? { network: { ip: s.network.ip, additionalIps: s.network.additional_ips.map((a) => a.ip) } } : {}),
  };
}

const fromMount = (m: WireContainerStatus['mounts'][number]): Mount => ({ containerPath: m.container_path, hostPath: m.host_path, readonly: m.readonly });

export function fromContainer(c: WireContainer): Container {
  return {
    id: c.id,
    podSandboxId: c.pod_sandbox_id,
    metadata: { name: c.metadata?.name ?? '', attempt: c.metadata?.attempt ?? 0 },
    image: c.image?.image ?? '',
    imageRef: c.image_ref,
    state: c.state,
    createdAt: nanos(c.created_at),
    labels: plain(c.labels),
    annotations: plain(c.annotations),
  };
}

export function fromContainerStatus(s: WireContainerStatus): ContainerStatus {
  return {
    id: s.id,
    metadata: { name: s.metadata?.name ?? '', attempt: s.metadata?.attempt ?? 0 },
    state: s.state,
    createdAt: nanos(s.created_at),
    startedAt: nanos(s.started_at),
    finishedAt: nanos(s.finished_at),
    exitCode: s.exit_code,
    image: s.image?.image ?? '',
    imageRef: s.image_ref,
    reason: s.reason,
    message: s.message,
    labels: plain(s.labels),
    annotations: plain(s.annotations),
    mounts: s.mounts.map(fromMount),
    logPath: s.log_path,
  };
}

export function fromImage(i: WireImage): Image {
  return {
    id: i.id,
    repoTags: [...i.repo_tags],
    repoDigests: [...i.repo_digests],
    size: num(i.size),
    ...(i.uid ? { uid: num(i.uid.value) } : {}),
    ...(i.username !== '' ? { username: i.username } : {}),
    pinned: i.pinned,
  };
}

export function fromFilesystemUsage(f: WireFilesystemUsage): ImageFsInfo {
  return { mountpoint: f.fs_id?.mountpoint ?? '', usedBytes: num(f.used_bytes?.value), inodesUsed: num(f.inodes_used?.value) };
}

export function fromVersion(v: { runtime_name: string; runtime_version: string; runtime_api_version: string }): VersionInfo {
  return { runtimeApiVersion: v.runtime_api_version, runtimeName: v.runtime_name, runtimeVersion: v.runtime_version };
}

export function fromRuntimeStatus(s: { conditions: { type: string; status: boolean; reason: string; message: string }[] } | null): RuntimeStatus {
  return { conditions: (s?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })) };
}
