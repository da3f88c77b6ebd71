/**
 * The cri container runtime: a gRPC client of a CRI v1 endpoint (containerd's
 * unix socket). Each method is one RPC; cri-convert.ts maps the types field by
 * field. What the contract asks beyond the wire:
 *
 * - stop and remove are idempotent: NotFound from them is success.
 * - StopContainer and ExecSync wait on purpose (the grace period, the exec
 *   timeout), so their gRPC deadline is the request timeout plus that wait;
 *   an exec that outlives its timeout fails with DEADLINE_EXCEEDED from
 *   containerd ("timeout 1s exceeded"), which stays DeadlineExceeded.
 * - containerd says "container is in CONTAINER_EXITED state" with gRPC
 *   UNKNOWN when a start is refused; that becomes InvalidArgument.
 * - imageStatus of an absent image answers OK with no image: undefined.
 * - The kubelet never pulls: there is no PullImage here.
 * - exec, attach and portForward ask containerd for its streaming URL (so an
 *   unknown id is NotFound) and connect to it over SPDY/3.1 (cri-streams.ts).
 *   containerd's streaming server listens on 127.0.0.1 of containerd's network
 *   namespace, so the kubelet must share it.
 */
import {
  RuntimeError,
  type Container,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerRuntime,
  type ContainerStatus,
  type ExecRequest,
  type ExecSyncResult,
  type Image,
  type ImageFsInfo,
  type ImageService,
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
import { CriConnection } from './cri-connection.js';
import { openPortForward, openRemoteCommand } from './cri-streams.js';
import {
  fromContainer,
  fromContainerStatus,
  fromFilesystemUsage,
  fromImage,
  fromPodSandbox,
  fromPodSandboxStatus,
  fromRuntimeStatus,
  fromVersion,
  toContainerConfig,
  toPodSandboxConfig,
  type WireContainer,
  type WireContainerStatus,
  type WireFilesystemUsage,
  type WireImage,
  type WirePodSandbox,
  type WirePodSandboxStatus,
} from './cri-convert.js';

export interface CriRuntimeOptions {
  /** containerd's CRI socket: unix:///run/containerd/containerd.sock or an absolute path. */
  readonly endpoint: string;
  /** Deadline of each RPC (ms); upstream's --runtime-request-timeout is 2 min. */
  readonly timeoutMs?: number;
  /** A separate image endpoint (upstream's --image-service-endpoint); default: the runtime's. */
  readonly imageEndpoint?: string;
}

export const DEFAULT_CRI_TIMEOUT_MS = 120_000;
/** How long an ended attach looks for its container's exit before it reports 0 (the container still runs). */
const ATTACH_EXIT_WAIT_MS = 2_000;
/** The CRI version the kubelet announces in VersionRequest. */
const KUBELET_CRI_VERSION = '0.1.0';

const ignoreNotFound = (e: unknown): void => {
  if (e instanceof RuntimeError && e.code === 'NotFound') return;
  throw e;
};

/** Connecting to containerd's streaming server failed: Unknown, naming what and where. */
async function streaming<T>(what: string, url: string, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (e: unknown) {
    throw new RuntimeError('Unknown', `${what}: containerd's streaming server at ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

export class CriRuntimeService implements RuntimeService {
  constructor(private readonly conn: CriConnection) {}

  private call<Res>(rpc: string, request: object, extraMs = 0): Promise<Res> {
    return this.conn.call<Res>('RuntimeService', rpc, request, extraMs);
  }

  async version(): Promise<VersionInfo> {
    return fromVersion(await this.call('Version', { version: KUBELET_CRI_VERSION }));
  }

  async status(): Promise<RuntimeStatus> {
    const r = await this.call<{ status: Parameters<typeof fromRuntimeStatus>[0] }>('Status', { verbose: false });
    return fromRuntimeStatus(r.status);
  }

  async updateRuntimeConfig(config: { readonly podCIDR: string }): Promise<void> {
    await this.call('UpdateRuntimeConfig', { runtime_config: { network_config: { pod_cidr: config.podCIDR } } });
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string): Promise<string> {
    const r = await this.call<{ pod_sandbox_id: string }>('RunPodSandbox', { config: toPodSandboxConfig(config), runtime_handler: runtimeHandler ?? '' });
    return r.pod_sandbox_id;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.call('StopPodSandbox', { pod_sandbox_id: podSandboxId }).catch(ignoreNotFound);
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.call('RemovePodSandbox', { pod_sandbox_id: podSandboxId }).catch(ignoreNotFound);
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const r = await this.call<{ status: WirePodSandboxStatus | null }>('PodSandboxStatus', { pod_sandbox_id: podSandboxId, verbose: false });
    if (!r.status) throw new RuntimeError('NotFound', `PodSandboxStatus: no status for sandbox ${JSON.stringify(podSandboxId)}`);
    return fromPodSandboxStatus(r.status);
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const wireFilter = filter
      ? { id: filter.id ?? '', state: filter.state !== undefined ? { state: filter.state } : null, label_selector: filter.labelSelector ?? {} }
      : null;
    const r = await this.call<{ items: WirePodSandbox[] }>('ListPodSandbox', { filter: wireFilter });
    return r.items.map(fromPodSandbox).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const r = await this.call<{ container_id: string }>('CreateContainer', {
      pod_sandbox_id: podSandboxId,
      config: toContainerConfig(config, sandboxConfig),
      sandbox_config: toPodSandboxConfig(sandboxConfig),
    });
    return r.container_id;
  }

  async startContainer(containerId: string): Promise<void> {
    try {
      await this.call('StartContainer', { container_id: containerId });
    } catch (e: unknown) {
      if (e instanceof RuntimeError && e.code === 'Unknown' && /is in CONTAINER_\w+ state/.test(e.message)) {
        throw new RuntimeError('InvalidArgument', e.message, { cause: e });
      }
      throw e;
    }
  }

  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.call('StopContainer', { container_id: containerId, timeout: timeoutSeconds }, timeoutSeconds * 1000).catch(ignoreNotFound);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.call('RemoveContainer', { container_id: containerId }).catch(ignoreNotFound);
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const wireFilter = filter
      ? {
          id: filter.id ?? '',
          state: filter.state !== undefined ? { state: filter.state } : null,
          pod_sandbox_id: filter.podSandboxId ?? '',
          label_selector: filter.labelSelector ?? {},
        }
      : null;
    const r = await this.call<{ containers: WireContainer[] }>('ListContainers', { filter: wireFilter });
    return r.containers.map(fromContainer).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const r = await this.call<{ status: WireContainerStatus | null }>('ContainerStatus', { container_id: containerId, verbose: false });
    if (!r.status) throw new RuntimeError('NotFound', `ContainerStatus: no status for container ${JSON.stringify(containerId)}`);
    return fromContainerStatus(r.status);
  }

  async execSync(containerId: string, cmd: readonly string[], timeoutSeconds: number): Promise<ExecSyncResult> {
    const r = await this.call<{ stdout: Buffer; stderr: Buffer; exit_code: number }>(
      'ExecSync',
      { container_id: containerId, cmd: [...cmd], timeout: timeoutSeconds },
      timeoutSeconds * 1000,
    );
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exitCode: r.exit_code };
  }

  async exec(request: ExecRequest): Promise<StreamSession> {
    const r = await this.call<{ url: string }>('Exec', {
      container_id: request.containerId,
      cmd: [...request.cmd],
      tty: request.tty,
      stdin: request.stdin,
      stdout: request.stdout,
      stderr: request.stderr && !request.tty,
    });
    return streaming('exec', r.url, () => openRemoteCommand(r.url, request));
  }

  async attach(request: StreamRequest): Promise<StreamSession> {
    const r = await this.call<{ url: string }>('Attach', {
      container_id: request.containerId,
      stdin: request.stdin,
      tty: request.tty,
      stdout: request.stdout,
      stderr: request.stderr && !request.tty,
    });
    const id = request.containerId;
    return streaming('attach', r.url, () =>
      openRemoteCommand(r.url, {
        ...request,
        // attach reports only Success when the container ends: its exit code is the container's.
        exitCodeAfter: async () => {
          // containerd may record the exit a moment after the stream ends.
          for (const deadline = Date.now() + ATTACH_EXIT_WAIT_MS; ; ) {
            const s = await this.containerStatus(id).catch(() => undefined);
            if (s?.state === 'CONTAINER_EXITED') return s.exitCode;
            if (s === undefined || Date.now() > deadline) return undefined;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        },
      }),
    );
  }

  async portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream> {
    const r = await this.call<{ url: string }>('PortForward', { pod_sandbox_id: podSandboxId, port: [port] });
    return streaming('port-forward', r.url, () => openPortForward(r.url, port));
  }
}

export class CriImageService implements ImageService {
  constructor(private readonly conn: CriConnection) {}

  private call<Res>(rpc: string, request: object): Promise<Res> {
    return this.conn.call<Res>('ImageService', rpc, request);
  }

  async listImages(): Promise<Image[]> {
    const r = await this.call<{ images: WireImage[] }>('ListImages', { filter: null });
    return r.images.map(fromImage);
  }

  async imageStatus(image: string): Promise<Image | undefined> {
    const r = await this.call<{ image: WireImage | null }>('ImageStatus', { image: { image }, verbose: false });
    return r.image ? fromImage(r.image) : undefined;
  }

  async removeImage(image: string): Promise<void> {
    await this.call('RemoveImage', { image: { image } }).catch(ignoreNotFound);
  }

  async imageFsInfo(): Promise<ImageFsInfo[]> {
    const r = await this.call<{ image_filesystems: WireFilesystemUsage[] }>('ImageFsInfo', {});
    return r.image_filesystems.map(fromFilesystemUsage);
  }
}

/** The `cri` ContainerRuntime of `--container-runtime`. Connecting is lazy: the first call reaches the socket. */
export function newCriRuntime(options: CriRuntimeOptions): ContainerRuntime & { readonly runtime: CriRuntimeService; readonly images: CriImageService } {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CRI_TIMEOUT_MS;
  const conn = new CriConnection(options.endpoint, timeoutMs);
  const imageConn = options.imageEndpoint !== undefined && options.imageEndpoint !== options.endpoint ? new CriConnection(options.imageEndpoint, timeoutMs) : conn;
  return {
    name: 'cri',
    runtime: new CriRuntimeService(conn),
    images: new CriImageService(imageConn),
    close: async () => {
      conn.close();
      if (imageConn !== conn) imageConn.close();
    },
  };
}
