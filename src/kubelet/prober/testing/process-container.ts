/**
 * One pod sandbox with one running container on the real process runtime,
 * for the prober's tests (exec probes in a real container, probes that
 * connect to a server the container runs on its pod IP).
 */
import { join } from 'node:path';
import type { RuntimeService } from '../../runtime/interface.js';

export interface ProcessContainer {
  readonly runtime: RuntimeService;
  readonly sandboxId: string;
  readonly containerId: string;
  /** The sandbox's address inside the runtime's pod CIDR. */
  readonly podIP: string;
  /** Start another container (a restart: attempt + 1) in the same sandbox. */
  restart(): Promise<string>;
  /** Stops and removes the sandbox and its containers. */
  dispose(): Promise<void>;
}

let counter = 0;

export async function startProcessContainer(
  runtime: RuntimeService,
  root: string,
  options: { readonly command: readonly string[]; readonly name?: string; readonly env?: Readonly<Record<string, string>> },
): Promise<ProcessContainer> {
  const n = ++counter;
  const sandboxConfig = {
    metadata: { name: `probe-pod-${n}`, uid: `probe-uid-${n}`, namespace: 'default', attempt: 0 },
    hostname: `probe-pod-${n}`,
    logDirectory: join(root, 'pods', `probe-pod-${n}`),
    portMappings: [],
    labels: {},
    annotations: {},
  };
  const sandboxId = await runtime.runPodSandbox(sandboxConfig);
  const podIP = (await runtime.podSandboxStatus(sandboxId)).network?.ip ?? '';
  let attempt = 0;
  const start = async (): Promise<string> => {
    const id = await runtime.createContainer(
      sandboxId,
      {
        metadata: { name: options.name ?? 'app', attempt },
        image: 'docker.io/library/not-built:1',
        command: [...options.command],
        args: [],
        envs: [{ key: 'POD_IP', value: podIP }, ...Object.entries(options.env ?? {}).map(([key, value]) => ({ key, value }))],
        mounts: [],
        labels: {},
        annotations: {},
        logPath: `app/${attempt}.log`,
        stdin: false,
        stdinOnce: false,
        tty: false,
      },
      sandboxConfig,
    );
    attempt++;
    await runtime.startContainer(id);
    return id;
  };
  const containerId = await start();
  return {
    runtime,
    sandboxId,
    containerId,
    podIP,
    restart: start,
    dispose: async () => {
      await runtime.stopPodSandbox(sandboxId);
      await runtime.removePodSandbox(sandboxId);
    },
  };
}
