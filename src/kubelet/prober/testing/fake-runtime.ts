/**
 * A RuntimeService for the prober's unit tests: containers are entries in a
 * map with a state and a start time, and execSync answers with whatever the
 * test's `exec` function says (an exit code, a delay, an error). Every other
 * method rejects: the prober must not call them.
 */
import { RuntimeError, type ContainerState, type ContainerStatus, type ExecSyncResult, type RuntimeService } from '../../runtime/interface.js';

export interface FakeContainer {
  state: ContainerState;
  /** Date.now() of the start. */
  startedAtMs: number;
}

export interface ExecCall {
  readonly containerId: string;
  readonly cmd: readonly string[];
  readonly timeoutSeconds: number;
}

export type FakeExec = (call: ExecCall) => Promise<ExecSyncResult> | ExecSyncResult;

export interface FakeRuntime extends RuntimeService {
  readonly containers: Map<string, FakeContainer>;
  readonly execCalls: ExecCall[];
  /** How execSync answers (replace it in a test). */
  execAnswer: FakeExec;
  /** Add a running container started now (or at `startedAtMs`). */
  run(containerId: string, startedAtMs?: number): void;
}

export const exitWith = (exitCode: number, stdout = '', stderr = ''): ExecSyncResult => ({
  exitCode,
  stdout: Buffer.from(stdout),
  stderr: Buffer.from(stderr),
});

const unused = (name: string) => (): Promise<never> => Promise.reject(new Error(`fake runtime: ${name} is not used by the prober`));

export function newFakeRuntime(): FakeRuntime {
  const containers = new Map<string, FakeContainer>();
  const execCalls: ExecCall[] = [];
  const notFound = (id: string): RuntimeError => new RuntimeError('NotFound', `container "${id}" not found`);
  const fake: FakeRuntime = {
    containers,
    execCalls,
    execAnswer: () => exitWith(0),
    run(containerId, startedAtMs = Date.now()) {
      containers.set(containerId, { state: 'CONTAINER_RUNNING', startedAtMs });
    },
    version: unused('version'),
    status: unused('status'),
    updateRuntimeConfig: unused('updateRuntimeConfig'),
    runPodSandbox: unused('runPodSandbox'),
    stopPodSandbox: unused('stopPodSandbox'),
    removePodSandbox: unused('removePodSandbox'),
    podSandboxStatus: unused('podSandboxStatus'),
    listPodSandbox: unused('listPodSandbox'),
    createContainer: unused('createContainer'),
    startContainer: unused('startContainer'),
    stopContainer: unused('stopContainer'),
    removeContainer: unused('removeContainer'),
    listContainers: unused('listContainers'),
    async containerStatus(containerId: string): Promise<ContainerStatus> {
      const c = containers.get(containerId);
      if (c === undefined) throw notFound(containerId);
      return {
        id: containerId,
        metadata: { name: 'c', attempt: 0 },
        state: c.state,
        createdAt: BigInt(c.startedAtMs) * 1_000_000n,
        startedAt: c.state === 'CONTAINER_CREATED' ? 0n : BigInt(c.startedAtMs) * 1_000_000n,
        finishedAt: 0n,
        exitCode: 0,
        image: 'busybox',
        imageRef: '',
        reason: '',
        message: '',
        labels: {},
        annotations: {},
        mounts: [],
        logPath: '',
      };
    },
    async execSync(containerId: string, cmd: readonly string[], timeoutSeconds: number): Promise<ExecSyncResult> {
      execCalls.push({ containerId, cmd, timeoutSeconds });
      const c = containers.get(containerId);
      if (c === undefined || c.state !== 'CONTAINER_RUNNING') throw notFound(containerId);
      return fake.execAnswer({ containerId, cmd, timeoutSeconds });
    },
    exec: unused('exec'),
    attach: unused('attach'),
    portForward: unused('portForward'),
  };
  return fake;
}
