/**
 * One k8ts server for one test file: started in a temporary data directory on
 * a free port, stopped (and its directory removed) by `stop`, which a test
 * file calls from its `after` hook.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { ensureDefaultServiceAccount } from '../testing/service-accounts.js';
import { newKubectl } from '../testing/kubectl.js';
import { killNodeContainers } from '../kubelet/testing/agent-containers.js';

export interface TestCluster {
  /** The admin kubeconfig the server wrote. */
  readonly kubeconfig: string;
  /** A scratch directory for the test's own files (manifests, scripts). */
  readonly workDir: string;
  readonly server: K8tsProcess;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Extra flags of `k8ts server` (e.g. `--controller-manager-arg=--controllers=*,-deployment`). */
  readonly serverArgs?: readonly string[];
  /** Make sure the `default` ServiceAccount of namespace default exists before returning (default true). */
  readonly defaultServiceAccount?: boolean;
  /**
   * Run the server's kubelet, so that the cluster has a node that runs pods
   * (default false: most files test the control plane, some with Nodes of
   * their own, and a real node beside them would take their pods).
   */
  readonly agent?: boolean;
}

export async function startCluster(name: string, options: ClusterOptions = {}): Promise<TestCluster> {
  const root = await mkdtemp(join(tmpdir(), `k8ts-${name}-`));
  const agentArgs = options.agent === true ? [] : ['--disable-agent'];
  const server = startK8ts(['server', '--data-dir', join(root, 'data'), '--secure-port', '0', ...agentArgs, ...(options.serverArgs ?? [])]);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      await server.stop();
      // Containers outlive their kubelet (as upstream's): end the ones this cluster's node ran.
      if (options.agent === true) await killNodeContainers(join(root, 'data', 'kubelet'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  };
  try {
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    const kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    // Pods are refused until `default` exists (ServiceAccount admission, as upstream); rather than wait for the
    // controller manager to start and make it, the test makes it (the controller accepts AlreadyExists).
    if (options.defaultServiceAccount !== false) await ensureDefaultServiceAccount(newKubectl('1.32', kubeconfig), 'default');
    return { kubeconfig, workDir: root, server, stop };
  } catch (e: unknown) {
    await stop();
    throw e;
  }
}
