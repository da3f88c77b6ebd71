/**
 * The kubelet as a whole: it composes the parts around the pod workers and
 * starts them in upstream's order.
 *
 * 1. The runtime (the process runtime unless one is given) and the kubelet's
 *    own HTTPS server (its port goes in the Node's daemonEndpoints).
 * 2. The pod sources: static pods (--pod-manifest-path) at once, needing no
 *    API server; the API pods of this node (list+watch, checkpointed). Their
 *    merge goes to the pod workers (PodWorkers.update; mirror pods included,
 *    for static pod status); mirror pods are kept in step with the static pods.
 * 3. Registration of the Node (retried until it succeeds), the node watch
 *    (spec.podCIDR → the runtime's UpdateRuntimeConfig), the Lease and the
 *    node status.
 *
 * The parts other modules build (pod workers, volumes, env, probes, server)
 * come in through {@link KubeletParts}; without them (`parts` undefined) the
 * kubelet still registers, heartbeats, reads its pod sources and keeps
 * mirror pods, but runs no pod. Stopping the kubelet never stops containers:
 * they outlive it, and the next kubelet adopts them.
 */
import { join } from 'node:path';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { newEventRecorderFactory, type EventSink } from '../client/record/event-recorder.js';
import type { Client } from '../client/rest/interface.js';
import type { Logger } from '../machinery/logger.js';
import { newApiSource } from './config/api-source.js';
import { newPodCheckpoint } from './config/checkpoint.js';
import { newFileSource } from './config/file-source.js';
import type { PodSource } from './config/interface.js';
import type { KubeletConfiguration } from './config/kubelet-config.js';
import { newPodConfig, type PodConfigState } from './config/pod-config.js';
import type { NewEnvResolver } from './env/interface.js';
import { readMachineInfo, goArch, goOs, type MachineInfo } from './node/machine-info.js';
import { nodeReference, recordConditionEvents } from './node/node-events.js';
import { defaultNodeLabels } from './node/node-labels.js';
import { newNodeLease, type NodeLease } from './node/node-lease.js';
import { newNodeStatusReporter, type NodeStatusReporter } from './node/node-status-reporter.js';
import type { NodeStatusInputs } from './node/node-status.js';
import { newNodeWatch, type NodeWatch } from './node/node-watch.js';
import { initialNode, registerNode } from './node/registration.js';
import { DEFAULT_RESOLV_CONF, readHostResolvConf } from './pod-workers/dns-config.js';
import type { NewPodWorkers, PodWorkers } from './pod-workers/interface.js';
import type { NewProbeManager, ProbeManager } from './prober/interface.js';
import type { ContainerRuntime, Image, VersionInfo } from './runtime/interface.js';
import type { KubeletServer, StartKubeletServer } from './server/interface.js';
import { newMirrorPods, type MirrorPods } from './static-pods/mirror-pods.js';
import type { Node } from './types.js';
import type { ContainerMounts, PodObjectSource, VolumeManager } from './volumes/interface.js';

/** What the kubelet needs to make the API object source (configMaps, secrets, services, tokens). */
export interface ApiObjectSourceOptions {
  readonly client: Client;
  readonly logger: Logger;
}

/** What the kubelet gives the volume manager. */
export interface VolumeManagerOptions {
  /** The kubelet's root directory; volumes live under `<rootDir>/pods/<uid>/volumes/`. */
  readonly rootDir: string;
  readonly nodeName: string;
  readonly objects: PodObjectSource;
  readonly node: () => Node | undefined;
  readonly logger: Logger;
  /** How long set-up volumes of an unchanged pod are left alone (the sync period). */
  readonly refreshIntervalMs: number;
}

/** The parts built by other modules, injected so that each can be tested alone and the kubelet with fakes. */
export interface KubeletParts {
  readonly newPodWorkers: NewPodWorkers;
  readonly newApiObjectSource: (options: ApiObjectSourceOptions) => PodObjectSource;
  readonly newVolumeManager: (options: VolumeManagerOptions) => VolumeManager;
  readonly containerMounts: ContainerMounts;
  readonly newEnvResolver: NewEnvResolver;
  readonly newProbeManager: NewProbeManager;
  readonly startKubeletServer: StartKubeletServer;
}

export interface RunKubeletOptions {
  readonly config: KubeletConfiguration;
  /** The client, with the node's identity (system:node:<name>). */
  readonly client: Client;
  readonly runtime: ContainerRuntime;
  /** undefined: no pod is run (the parts are not available). */
  readonly parts: KubeletParts | undefined;
  readonly logger: Logger;
  /** The machine (default: read from this one); tests give a fixed one. */
  readonly machineInfo?: () => Promise<MachineInfo>;
  /** The host name reported in addresses and kubernetes.io/hostname (default: the node name, as upstream's hostname-override). */
  readonly hostname?: string;
}

export interface Kubelet {
  readonly nodeName: string;
  /** The port the kubelet's server listens on (undefined without parts). */
  readonly serverPort: number | undefined;
  /** The latest Node object the kubelet knows. */
  node(): Node | undefined;
  /** The merged pod sources, as last given to the pod workers. */
  pods(): PodConfigState;
  /** Resolves once the Node is registered (never, if registration is off and the Node does not exist). */
  readonly registered: Promise<Node>;
  readonly metrics: Registry;
  /** Stops every loop and the server; containers keep running. */
  stop(): Promise<void>;
}

export async function runKubelet(options: RunKubeletOptions): Promise<Kubelet> {
  const { config, client, runtime, parts } = options;
  const log = options.logger;
  const nodeName = config.nodeName;
  const hostname = options.hostname ?? nodeName;
  const stopping = new AbortController();

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({ name: 'kubelet_node_name', help: "The node's name. The count is always 1.", labelNames: ['node'], registers: [registry] }).set({ node: nodeName }, 1);

  const events: EventSink = newEventRecorderFactory(client, { host: nodeName, logger: log.child({ part: 'events' }) });
  const recorder = events.recorderFor('kubelet');

  let nodeWatch: NodeWatch | undefined;
  const currentNode = (): Node | undefined => nodeWatch?.node;

  // 1. The pod workers and the server.
  let workers: PodWorkers | undefined;
  let probes: ProbeManager | undefined;
  let server: KubeletServer | undefined;
  if (parts !== undefined) {
    const objects = parts.newApiObjectSource({ client, logger: log.child({ part: 'objects' }) });
    const volumes = parts.newVolumeManager({ rootDir: config.rootDir, nodeName, objects, node: currentNode, logger: log.child({ part: 'volumes' }), refreshIntervalMs: config.syncFrequencyMs });
    probes = parts.newProbeManager({
      runtime: runtime.runtime,
      events: recorder,
      registry,
      onChange: (podUid) => workers?.requestSync(podUid),
      onFailure: (podUid, containerName, containerId, _kind, message) => workers?.killContainer(podUid, containerName, containerId, message),
    });
    workers = parts.newPodWorkers({
      nodeName,
      nodeIPs: [config.nodeIP],
      rootDir: config.rootDir,
      logsDir: join(config.rootDir, 'logs'),
      runtime,
      volumes,
      containerMounts: parts.containerMounts,
      env: parts.newEnvResolver(objects),
      probes,
      client,
      events: recorder,
      logger: log.child({ part: 'pod-workers' }),
      backoff: config.backoff,
      resyncIntervalMs: config.syncFrequencyMs,
      node: currentNode,
      dns: { clusterDNS: config.clusterDNS ?? [], clusterDomain: config.clusterDomain ?? '', hostResolvConf: readHostResolvConf(config.resolvConf ?? DEFAULT_RESOLV_CONF) },
    });
    try {
      server = await parts.startKubeletServer({
        nodeName,
        address: config.nodeIP,
        port: config.port,
        tlsCertFile: config.tlsCertFile,
        tlsPrivateKeyFile: config.tlsPrivateKeyFile,
        clientCaFile: config.clientCaFile,
        runtime,
        client,
        logger: log.child({ part: 'server' }),
        metrics: () => registry.metrics(),
      });
    } catch (e: unknown) {
      probes.stop();
      await workers.stop();
      throw new Error(`cannot start the kubelet server on ${config.nodeIP}:${config.port}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  const kubeletPort = server?.port ?? config.port;

  // 2. Pod sources, merged; mirror pods kept in step with the static pods.
  const mirrors: MirrorPods = newMirrorPods({ client, nodeName, node: currentNode, logger: log.child({ part: 'mirror-pods' }) });
  let apiSynced = false;
  let staticNames = '';
  /** Without --pod-manifest-path the file source is an empty set from the start (set below). */
  const syncMirrors = (state: PodConfigState): void =>
    mirrors.update({ staticPods: state.staticPods, mirrorPods: state.mirrorPods, apiSynced, staticSynced: state.seen.has('file') });
  const podConfig = newPodConfig((state) => {
    const names = state.staticPods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).join(',');
    if (names !== staticNames) {
      staticNames = names;
      log.info({ pods: state.staticPods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`) }, 'static pods');
    }
    // The workers remove every pod missing from the set they are given (and its containers), so they get
    // the set only once every source has answered (upstream's sourcesReady): before that, a partial set would
    // kill the running pods of the sources still starting.
    if (state.seen.has('api') && (config.podManifestPath === undefined || state.seen.has('file'))) workers?.update(state.pods);
    syncMirrors(state);
  });
  const sources: PodSource[] = [];
  if (config.podManifestPath !== undefined) {
    sources.push(newFileSource({ path: config.podManifestPath, nodeName, checkFrequencyMs: config.fileCheckFrequencyMs, logger: log.child({ source: 'file' }) }));
  }
  const apiSource = newApiSource({
    client,
    nodeName,
    checkpoint: newPodCheckpoint({ dir: join(config.rootDir, 'checkpoints'), logger: log.child({ part: 'checkpoint' }) }),
    logger: log.child({ source: 'api' }),
    ...(config.checkpointGraceMs !== undefined ? { checkpointGraceMs: config.checkpointGraceMs } : {}),
  });
  sources.push(apiSource);
  if (config.podManifestPath === undefined) podConfig.set('file', []);
  for (const source of sources) {
    await source.start((pods) => {
      if (source.name === 'api') apiSynced = apiSource.synced;
      podConfig.set(source.name, pods);
    });
  }

  // 3. The Node: its watch, registration, Lease and status.
  let statusReporter: NodeStatusReporter | undefined;
  nodeWatch = newNodeWatch({
    client,
    nodeName,
    runtime: runtime.runtime,
    logger: log.child({ part: 'node' }),
    // A Node uid is what mirror pods need for their owner reference.
    onNode: () => syncMirrors(podConfig.state),
    onPodCIDR: () => statusReporter?.poke(),
  });
  nodeWatch.start();

  const machine = await (options.machineInfo ?? (() => readMachineInfo(config.rootDir)))();
  const labels = { ...defaultNodeLabels({ hostname, os: machine.operatingSystem || goOs(), arch: machine.architecture || goArch() }), ...config.nodeLabels };
  let version: VersionInfo | undefined;
  const statusInputs = async (): Promise<NodeStatusInputs> => {
    version ??= await runtime.runtime.version().catch(() => undefined);
    const status = await runtime.runtime.status().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    const images: Image[] = await runtime.images.listImages().catch(() => []);
    return { nodeIP: config.nodeIP, hostname, machine, maxPods: config.maxPods, kubeletPort, runtimeVersion: version, runtimeStatus: status, images };
  };
  statusReporter = newNodeStatusReporter({
    client,
    nodeName,
    inputs: statusInputs,
    updateFrequencyMs: config.nodeStatusUpdateFrequencyMs,
    reportFrequencyMs: config.nodeStatusReportFrequencyMs,
    logger: log.child({ part: 'node-status' }),
    onNode: (node) => nodeWatch?.observe(node),
    onWritten: (status, previous) => recordConditionEvents(recorder, nodeName, status, previous),
  });
  const lease: NodeLease = newNodeLease({ client, nodeName, leaseDurationSeconds: config.nodeLeaseDurationSeconds, node: currentNode, logger: log.child({ part: 'lease' }) });

  recorder.event(nodeReference(nodeName), 'Normal', 'Starting', 'Starting kubelet.');
  const loops: Promise<void>[] = [lease.run(stopping.signal)];
  let resolveRegistered!: (node: Node) => void;
  const registered = new Promise<Node>((resolve) => (resolveRegistered = resolve));
  const registration = (async () => {
    if (config.registerNode) {
      const node = await registerNode({
        client,
        node: initialNode({ nodeName, labels, taints: config.registerWithTaints }),
        logger: log.child({ part: 'registration' }),
        signal: stopping.signal,
      });
      if (node === undefined) return;
      nodeWatch?.observe(node);
      resolveRegistered(node);
    }
    if (!stopping.signal.aborted) loops.push(statusReporter!.run(stopping.signal));
  })();
  if (!config.registerNode) {
    // The Node is someone else's to make; it counts as registered once seen.
    const check = setInterval(() => {
      const node = currentNode();
      if (node !== undefined) {
        clearInterval(check);
        resolveRegistered(node);
      }
    }, 50);
    stopping.signal.addEventListener('abort', () => clearInterval(check), { once: true });
  }

  let stopped: Promise<void> | undefined;
  return {
    nodeName,
    serverPort: server?.port,
    node: currentNode,
    pods: () => podConfig.state,
    registered,
    metrics: registry,
    stop(): Promise<void> {
      stopped ??= (async () => {
        stopping.abort();
        for (const source of sources) source.stop();
        mirrors.stop();
        nodeWatch?.stop();
        await registration;
        await Promise.all(loops);
        probes?.stop();
        await workers?.stop();
        await server?.close();
        await Promise.race([events.shutdown(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
        await runtime.close();
      })();
      return stopped;
    },
  };
}
