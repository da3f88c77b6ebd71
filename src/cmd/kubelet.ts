/**
 * `k8ts kubelet`: the node agent, as upstream's kubelet. It registers its
 * Node, renews its Lease, reports node status, reads static pods from
 * --pod-manifest-path and the pods bound to it from the API server, and makes
 * them run through a container runtime (--container-runtime). It talks to the
 * API server only, with the identity of --kubeconfig (system:node:<name>).
 *
 * SIGINT/SIGTERM stop the kubelet, never its containers: they keep running,
 * and the next kubelet on the same --root-dir adopts them.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { newHttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import type { KubeletConfiguration } from '../kubelet/config/kubelet-config.js';
import { DEFAULT_KUBELET_PARTS } from '../kubelet/default-parts.js';
import { runKubelet, type KubeletParts } from '../kubelet/kubelet.js';
import type { ContainerRuntime } from '../kubelet/runtime/interface.js';
import { newCriRuntime } from '../kubelet/runtime/cri/cri-runtime.js';
import { newSimRuntime } from '../kubelet/runtime/sim/sim-runtime.js';
import { newProcessRuntime } from '../kubelet/runtime/process/process-runtime.js';
import { newLogger } from '../machinery/logger.js';
import { defaultImagesDir } from './image.js';
import { addKubeletFlags, kubeletFlagsError, type KubeletFlags } from './kubelet-flags.js';
import { ensureSelfSignedServingCert, writeClientCa } from './kubelet-serving-cert.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** The parts the kubelet runs pods with (undefined: it runs no pod). */
export type KubeletPartsProvider = () => Promise<KubeletParts | undefined>;

const defaultParts: KubeletPartsProvider = async () => DEFAULT_KUBELET_PARTS;

export function kubeletCommand(parts: KubeletPartsProvider = defaultParts): Command {
  const command = new Command('kubelet').description('run the node agent: register this node and run the pods bound to it');
  addKubeletFlags(command);
  return command.action(async (flags: KubeletFlags) => {
    const code = await runKubeletCommand(flags, parts);
    // As upstream: exit now, even if a request is still retrying against an unreachable API server.
    process.exit(code);
  });
}

/** The runtime `--container-runtime` names. */
export function newRuntime(flags: KubeletFlags, rootDir: string): ContainerRuntime {
  switch (flags.containerRuntime) {
    case 'process':
      // Its shim daemon boots now, so that the first container start need not wait for it.
      return newProcessRuntime({ stateDir: join(rootDir, 'runtime'), imagesDir: resolve(flags.imagesDir ?? defaultImagesDir('.k8ts')), shimDaemonAtOnce: true });
    case 'cri':
      return newCriRuntime({ endpoint: flags.containerRuntimeEndpoint ?? '' });
    case 'sim':
      // Each simulated node draws its own ids (several sim kubelets may share one machine).
      return newSimRuntime({ idSeed: flags.nodeName });
  }
}

export async function runKubeletCommand(flags: KubeletFlags, parts: KubeletPartsProvider): Promise<number> {
  const problem = kubeletFlagsError(flags);
  if (problem !== undefined) {
    process.stderr.write(`error: ${problem}\n`);
    return 1;
  }
  // Listen for signals at once: one that comes while the kubelet starts stops it as soon as it has started.
  const signalled = new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  const log = newLogger('kubelet');
  const rootDir = resolve(flags.rootDir);
  let restConfig;
  try {
    restConfig = restConfigFromKubeconfig(flags.kubeconfig!, { userAgent: `kubelet/v1.33.0-k8ts.0 (${flags.nodeName})`, qps: flags.kubeApiQps, burst: flags.kubeApiBurst, maxRetries: 2 });
  } catch (e: unknown) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  await mkdir(rootDir, { recursive: true, mode: 0o750 });
  const pkiDir = join(rootDir, 'pki');
  let tlsCertFile = flags.tlsCertFile;
  let tlsPrivateKeyFile = flags.tlsPrivateKeyFile;
  if (tlsCertFile === undefined || tlsPrivateKeyFile === undefined) {
    const serving = await ensureSelfSignedServingCert({ pkiDir, nodeName: flags.nodeName, nodeIP: flags.nodeIp });
    tlsCertFile = serving.certFile;
    tlsPrivateKeyFile = serving.keyFile;
    out(`kubelet: ${serving.made ? 'made' : 'reusing'} a self-signed serving certificate ${serving.certFile}`);
  }
  let clientCaFile = flags.clientCaFile;
  if (clientCaFile === undefined) {
    if (restConfig.ca === undefined) {
      process.stderr.write('error: --client-ca-file is required when the kubeconfig names no certificate authority\n');
      return 1;
    }
    clientCaFile = await writeClientCa(pkiDir, restConfig.ca);
  }

  let runtime: ContainerRuntime;
  try {
    runtime = newRuntime(flags, rootDir);
  } catch (e: unknown) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  const config: KubeletConfiguration = {
    nodeName: flags.nodeName,
    nodeIP: flags.nodeIp,
    rootDir,
    ...(flags.podManifestPath !== undefined ? { podManifestPath: resolve(flags.podManifestPath) } : {}),
    port: flags.port,
    tlsCertFile,
    tlsPrivateKeyFile,
    clientCaFile,
    nodeStatusUpdateFrequencyMs: flags.nodeStatusUpdateFrequency,
    nodeStatusReportFrequencyMs: flags.nodeStatusReportFrequency,
    nodeLeaseDurationSeconds: flags.nodeLeaseDurationSeconds,
    syncFrequencyMs: flags.syncFrequency,
    fileCheckFrequencyMs: flags.fileCheckFrequency,
    registerNode: flags.registerNode,
    nodeLabels: flags.nodeLabels,
    registerWithTaints: flags.registerWithTaints,
    maxPods: flags.maxPods,
    backoff: { initialMs: flags.crashLoopBackoffInitial, maxMs: flags.crashLoopBackoffMax, resetAfterMs: flags.crashLoopBackoffReset },
    clusterDNS: flags.clusterDns,
    clusterDomain: flags.clusterDomain,
    resolvConf: flags.resolvConf,
  };

  const client = newHttpClient(restConfig);
  const kubeletParts = await parts();
  out(`kubelet: node ${config.nodeName} (${config.nodeIP}), root directory ${rootDir}`);
  out(`kubelet: ${runtime.name} runtime${runtime.name === 'process' ? ' (containers are host processes, see src/kubelet/runtime/process/README.md)' : ''}`);
  if (kubeletParts === undefined) out('kubelet: the pod workers are not built into this k8ts yet: pods are read and mirrored, not run');
  if (config.podManifestPath !== undefined) out(`kubelet: static pods from ${config.podManifestPath}`);

  let kubelet;
  try {
    kubelet = await runKubelet({ config, client, runtime, parts: kubeletParts, logger: log });
  } catch (e: unknown) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    client.close();
    await runtime.close();
    return 1;
  }
  if (kubelet.serverPort !== undefined) out(`kubelet: serving on https://${config.nodeIP}:${kubelet.serverPort}`);
  void kubelet.registered.then((node) => out(`kubelet: registered node ${node.metadata.name ?? config.nodeName}`));

  await signalled;
  out('kubelet: stopping (containers keep running)');
  await kubelet.stop();
  client.close();
  out('kubelet: stopped');
  return 0;
}
