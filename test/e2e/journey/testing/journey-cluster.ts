/**
 * The cluster of the journey: `k8ts server` started as the README says, with
 * short timers through its pass-through flags, and (for the process runtime)
 * a second node joined with `k8ts agent` on the same machine at 127.0.0.2. Every timer the journey
 * depends on is named here once, so that the test's waits can be reasoned
 * about:
 * - the kubelets post their status every STATUS_PERIOD_MS and renew their
 *   Lease every LEASE_SECONDS / 4 (upstream's renew interval);
 * - the node lifecycle controller checks every 200 ms and calls a node not
 *   heard from for NODE_MONITOR_GRACE_MS Ready=Unknown (then the unreachable
 *   taint evicts pods after their tolerationSeconds);
 * - the proxies sync at most every 100 ms;
 * - a crashing or killed container is restarted after 1 s, then 2 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restConfigFromKubeconfig } from '../../../../src/client/rest/kubeconfig.js';
import { killNodeContainers } from '../../kubelet/testing/agent-containers.js';
import { componentPid } from '../../kubelet/testing/node-processes.js';
import { runK8ts, startK8ts, type K8tsProcess } from '../../testing/k8ts-process.js';

export const STATUS_PERIOD_MS = 500;
export const LEASE_SECONDS = 2;
export const NODE_MONITOR_GRACE_MS = 5000;

/** Kubelet flags of every node of the journey. */
export const KUBELET_TIMERS = [
  `--node-status-update-frequency=${STATUS_PERIOD_MS}ms`,
  `--node-lease-duration-seconds=${LEASE_SECONDS}`,
  '--sync-frequency=1s',
  '--crash-loop-backoff-initial=1s',
  '--crash-loop-backoff-max=2s',
];

/** `k8ts server` flags: short timers for the controller manager, the kubelet and the proxy. */
export function serverTimerArgs(): string[] {
  return [
    '--node-monitor-grace-period',
    `${NODE_MONITOR_GRACE_MS}ms`,
    '--controller-manager-arg=--node-monitor-period=200ms',
    '--proxy-arg=--min-sync-period=100ms',
    ...KUBELET_TIMERS.map((flag) => `--kubelet-arg=${flag}`),
  ];
}

export interface JourneyServer {
  readonly root: string;
  readonly dataDir: string;
  readonly server: K8tsProcess;
  readonly kubeconfig: string;
  readonly apiServerPort: number;
  readonly auditLog: string;
  /** The API server's pid, from the server's `apiserver: started (pid N)` line. */
  apiserverPid(): number;
  stop(): Promise<void>;
}

export interface JourneyServerOptions {
  readonly name: string;
  readonly extraArgs?: readonly string[];
  /** Run the server's own node (kubelet and proxy); default true. */
  readonly agent?: boolean;
  /** Shorten the timers (serverTimerArgs); default true. False starts `k8ts server` with its defaults, as `npm start` does. */
  readonly shortTimers?: boolean;
}

export async function startJourneyServer(options: JourneyServerOptions): Promise<JourneyServer> {
  const root = await mkdtemp(join(tmpdir(), `k8ts-journey-${options.name}-`));
  const dataDir = join(root, 'data');
  const withNode = options.agent !== false;
  const timers = options.shortTimers === false ? [] : serverTimerArgs();
  const server = startK8ts(['server', '--data-dir', dataDir, '--secure-port', '0', ...timers, ...(withNode ? [] : ['--disable-agent']), ...(options.extraArgs ?? [])]);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      // A stopped API server would not let the server stop.
      try {
        process.kill(componentPid(server, 'apiserver'), 'SIGCONT');
      } catch {
        // not started, or gone
      }
      await server.stop();
      if (withNode) await killNodeContainers(join(dataDir, 'kubelet'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  };
  try {
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    const kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    return {
      root,
      dataDir,
      server,
      kubeconfig,
      apiServerPort: Number(new URL(restConfigFromKubeconfig(kubeconfig).server).port),
      auditLog: join(dataDir, 'logs', 'audit.log'),
      apiserverPid: () => componentPid(server, 'apiserver'),
      stop,
    };
  } catch (e: unknown) {
    await stop();
    throw e;
  }
}

export interface AgentNode {
  readonly nodeName: string;
  readonly nodeIP: string;
  readonly dataDir: string;
  /** The process to SIGKILL to kill the node (its kubelet dies with it). */
  process(): K8tsProcess;
  /** Start it again, with the same data directory. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The join command `k8ts server` prints: `k8ts agent --server URL --token T --ca-cert-hash sha256:H`. */
export const JOIN_COMMAND = /k8ts agent --server (\S+) --token (\S+) --ca-cert-hash (sha256:[0-9a-f]{64})/;

/**
 * `k8ts agent` joined with the command the server printed (TLS bootstrap: the
 * bootstrap token, the CA pinned by its hash), at `nodeIP` with a data
 * directory of its own and no proxy (the server's userspace proxy owns the
 * Service addresses on this machine). Its kubelet is its child and dies with it.
 */
export async function startAgentNode(
  server: JourneyServer,
  options: { readonly nodeName: string; readonly nodeIP?: string; /** Default true: the kubelet's timers shortened (KUBELET_TIMERS). */ readonly shortTimers?: boolean },
): Promise<AgentNode> {
  const nodeIP = options.nodeIP ?? '127.0.0.2';
  const dataDir = join(server.root, `agent-${options.nodeName}`);
  const join_ = JOIN_COMMAND.exec(await server.server.waitForLine(JOIN_COMMAND, 60_000))!;
  const args = [
    'agent',
    '--server', join_[1]!,
    '--token', join_[2]!,
    '--ca-cert-hash', join_[3]!,
    '--data-dir', dataDir,
    '--node-name', options.nodeName,
    '--node-ip', nodeIP,
    '--disable-proxy',
    ...(options.shortTimers === false ? [] : KUBELET_TIMERS.map((flag) => `--kubelet-arg=${flag}`)),
  ];
  let current = startK8ts(args);
  const stop = async (): Promise<void> => {
    await current.stop();
    await killNodeContainers(join(dataDir, 'kubelet'));
  };
  return {
    nodeName: options.nodeName,
    nodeIP,
    dataDir,
    process: () => current,
    restart: async () => {
      current = startK8ts(args);
    },
    stop,
  };
}

/** Build a process-runtime image into a data directory (`k8ts image build NAME --data-dir DIR`). */
export async function buildProcessImage(name: string, dataDir: string): Promise<void> {
  const r = await runK8ts(['image', 'build', name, '--data-dir', dataDir], 60_000);
  if (r.code !== 0) throw new Error(`k8ts image build ${name} exited ${r.code}:\n${r.output}`);
}
