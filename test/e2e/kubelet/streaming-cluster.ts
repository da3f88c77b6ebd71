/**
 * A real API server (`k8ts apiserver`, Node,RBAC, with the kubelet client
 * flags server.ts will pass) and this process's own kubelet server over the
 * real process runtime, with a Node pointing at it. The pod workers are not
 * part of this: tests run sandboxes and containers in the runtime by hand,
 * labelled as the kubelet labels them. Stopped by `stop`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newHttpClient } from '../../../src/client/rest/http-client.js';
import type { Client } from '../../../src/client/rest/interface.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { NODES, PODS } from '../../../src/client/rest/resources.js';
import { freePort } from '../../../src/cmd/network-defaults.js';
import { ensureClusterPki, type ClusterPki } from '../../../src/cmd/pki/cluster-pki.js';
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../../../src/kubelet/runtime/labels.js';
import type { ContainerRuntime, PodSandboxConfig } from '../../../src/kubelet/runtime/interface.js';
import { newProcessRuntime } from '../../../src/kubelet/runtime/process/process-runtime.js';
import { startKubeletServer } from '../../../src/kubelet/server/kubelet-server.js';
import type { KubeletServer } from '../../../src/kubelet/server/interface.js';
import { newLogger } from '../../../src/machinery/logger.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { newKubectl } from '../testing/kubectl.js';
import { ensureDefaultServiceAccount } from '../testing/service-accounts.js';

export const NODE_NAME = 'stream-node';

export interface StreamingCluster {
  readonly root: string;
  readonly pki: ClusterPki;
  readonly kubeconfig: string;
  readonly apiserver: K8tsProcess;
  readonly admin: Client;
  readonly runtime: ContainerRuntime;
  readonly kubelet: KubeletServer;
  stop(): Promise<void>;
}

/** The API server's flags for kubelets, as server.ts passes them. */
export function kubeletClientArgs(pki: ClusterPki): string[] {
  return [
    '--kubelet-client-certificate',
    pki.apiserverKubeletClient.cert,
    '--kubelet-client-key',
    pki.apiserverKubeletClient.key,
    '--kubelet-certificate-authority',
    pki.caCert,
  ];
}

/**
 * `podCIDR` is the cluster's own: test files run two at a time, and two
 * clusters handing out the same pod address would have their pods' servers
 * fight over one address and port.
 */
export async function startStreamingCluster(name: string, podCIDR: string): Promise<StreamingCluster> {
  const root = await mkdtemp(join(tmpdir(), `k8ts-${name}-`));
  const dataDir = join(root, 'data');
  const port = await freePort();
  const pki = await ensureClusterPki({
    dataDir,
    serverUrl: `https://127.0.0.1:${port}`,
    nodeIps: ['127.0.0.1'],
    hostName: 'localhost',
    serviceClusterIp: '127.96.0.1',
    nodeName: NODE_NAME,
  });
  const apiserver = startK8ts([
    'apiserver',
    '--data-dir',
    dataDir,
    '--secure-port',
    String(port),
    '--bind-address',
    '127.0.0.1',
    '--advertise-address',
    '127.0.0.1',
    '--tls-cert-file',
    pki.servingCert,
    '--tls-private-key-file',
    pki.servingKey,
    '--client-ca-file',
    pki.caCert,
    '--service-account-key-file',
    pki.serviceAccountKey.publicKey,
    '--service-account-signing-key-file',
    pki.serviceAccountKey.privateKey,
    '--authorization-mode',
    'Node,RBAC',
    ...kubeletClientArgs(pki),
  ]);
  let kubelet: KubeletServer | undefined;
  let runtime: ContainerRuntime | undefined;
  const stop = async (): Promise<void> => {
    try {
      if (runtime !== undefined) {
        for (const sandbox of await runtime.runtime.listPodSandbox()) {
          await runtime.runtime.stopPodSandbox(sandbox.id);
          await runtime.runtime.removePodSandbox(sandbox.id);
        }
      }
      await kubelet?.close();
      await apiserver.stop();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  };
  try {
    await apiserver.waitForLine(/apiserver: serving on/, 60_000);
    const admin = newHttpClient(restConfigFromKubeconfig(pki.adminKubeconfig));
    await ensureDefaultServiceAccount(newKubectl('1.33', pki.adminKubeconfig), 'default');
    runtime = newProcessRuntime({ stateDir: join(root, 'runtime'), imagesDir: join(root, 'images'), podCIDR });
    kubelet = await startKubeletServer({
      nodeName: NODE_NAME,
      address: '127.0.0.1',
      port: 0,
      tlsCertFile: pki.kubeletServingCert,
      tlsPrivateKeyFile: pki.kubeletServingKey,
      clientCaFile: pki.caCert,
      runtime,
      client: newHttpClient(restConfigFromKubeconfig(pki.kubeconfigs.kubelet)),
      logger: newLogger('kubelet', { level: 'silent' }),
      metrics: async () => '# kubelet metrics\n',
    });
    const nodes = admin.resource(NODES);
    const node = await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE_NAME } } as KubeObject);
    await nodes.updateStatus({
      ...node,
      status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: NODE_NAME }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
    } as KubeObject);
    return { root, pki, kubeconfig: pki.adminKubeconfig, apiserver, admin, runtime, kubelet, stop };
  } catch (e: unknown) {
    await stop();
    throw e;
  }
}

export interface ContainerSpec {
  readonly name: string;
  /** argv, run on the host's PATH (the process runtime's missing-image mode). */
  readonly command: readonly string[];
  /** Earlier attempts, each run to completion before the next (for --previous). */
  readonly previous?: readonly (readonly string[])[];
  /** The container's declared ports (spec only: the process listens where it likes). */
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  /** In the pod's spec only: never created in the runtime, its status waiting for this reason. */
  readonly waitingReason?: string;
}

/** The pod in the API (bound to the node unless `nodeName` is ''), and its sandbox and containers in the runtime. */
export async function runPod(cluster: StreamingCluster, name: string, containers: readonly ContainerSpec[], nodeName = NODE_NAME): Promise<{ uid: string; podIP: string }> {
  const pod = (await cluster.admin.resource(PODS).create(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { ...(nodeName !== '' ? { nodeName } : {}), containers: containers.map((c) => ({ name: c.name, image: 'busybox', ...(c.ports !== undefined ? { ports: c.ports } : {}) })) },
    } as KubeObject,
    { namespace: 'default' },
  )) as KubeObject;
  const uid = pod.metadata.uid ?? '';
  if (nodeName === '') return { uid, podIP: '' };
  const rt = cluster.runtime.runtime;
  const labels = { [POD_NAME_LABEL]: name, [POD_NAMESPACE_LABEL]: 'default', [POD_UID_LABEL]: uid };
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name, namespace: 'default', uid, attempt: 0 },
    hostname: name,
    logDirectory: join(cluster.root, 'logs', `default_${name}_${uid}`),
    portMappings: [],
    labels,
    annotations: {},
  };
  const sandboxId = await rt.runPodSandbox(sandboxConfig);
  const podIP = (await rt.podSandboxStatus(sandboxId)).network?.ip ?? '';
  for (const c of containers) {
    if (c.waitingReason !== undefined) continue;
    const attempts = [...(c.previous ?? []), c.command];
    for (const [attempt, argv] of attempts.entries()) {
      const id = await rt.createContainer(
        sandboxId,
        {
          metadata: { name: c.name, attempt },
          image: 'busybox',
          command: argv,
          args: [],
          envs: [{ key: 'POD_IP', value: podIP }],
          mounts: [],
          labels: { ...labels, [CONTAINER_NAME_LABEL]: c.name },
          annotations: {},
          logPath: `${c.name}/${attempt}.log`,
          stdin: false,
          stdinOnce: false,
          tty: false,
        },
        sandboxConfig,
      );
      await rt.startContainer(id);
      if (attempt < attempts.length - 1) await waitFor(async () => (await rt.containerStatus(id)).state === 'CONTAINER_EXITED', `${c.name} attempt ${attempt} to exit`);
    }
  }
  // What the pod workers would report (kubectl port-forward wants a Running pod).
  const pods = cluster.admin.resource(PODS);
  const current = await pods.get(name, { namespace: 'default' });
  const waiting = containers.filter((c) => c.waitingReason !== undefined).map((c) => ({ name: c.name, state: { waiting: { reason: c.waitingReason } } }));
  const status = { ...(current as { status?: object }).status, phase: 'Running', hostIP: '127.0.0.1', podIP, podIPs: [{ ip: podIP }], ...(waiting.length > 0 ? { containerStatuses: waiting } : {}) };
  await pods.updateStatus({ ...current, status } as KubeObject, {
    namespace: 'default',
  });
  return { uid, podIP };
}

export async function waitFor(check: () => Promise<boolean>, what: string | (() => string), timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
