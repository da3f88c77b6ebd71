/**
 * `k8ts server`: the all-in-one cluster on this machine. It makes the PKI on
 * first start, runs each component as its own process (the API server, the
 * controller manager, the scheduler, the cluster DNS and, unless --disable-agent, a kubelet
 * for this machine's own node, and its kube-proxy unless --disable-proxy),
 * restarts one that crashes, and stops them all on SIGINT/SIGTERM (the
 * kubelet's containers keep running, for the next kubelet to adopt).
 */
import { parseAuthorizationModes } from '../apiserver/auth/authorizers/modes.js';
import { mkdirSync } from 'node:fs';
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createSocket } from 'node:dgram';
import { Command, Option } from 'commander';
import { DEFAULT_CLUSTER_DOMAIN } from '../dns/records.js';
import { newHttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import { NODES } from '../client/rest/resources.js';
import { defaultImagesDir } from './image.js';
import { durationFlag, formatDurationMs } from './go-duration.js';
import { describeStorage } from '../storage/open-storage.js';
import { DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_IP, DEFAULT_SERVICE_CLUSTER_IP_RANGE, freePort, kubernetesServiceIP, portIsFree } from './network-defaults.js';
import { ensureClusterPki } from './pki/cluster-pki.js';
import { addStorageFlags, etcdServersFromFlags, storageConfigFromFlags, type StorageFlags } from './storage-flags.js';
import { caCertHash, CLUSTER_INFO_NAMESPACE, formatBootstrapToken } from '../machinery/bootstrap-token.js';
import type { Client } from '../client/rest/interface.js';
import { CONFIG_MAPS } from '../client/rest/resources.js';
import { clusterInfoConfigMap } from './join/cluster-info.js';
import { formatJoinCommand } from './join/join-command.js';
import { ensureJoinRbac, ensureObject } from './join/join-rbac.js';
import { ensureServerJoinToken, type JoinTokenInfo } from './join/join-token.js';
import { waitForNodeReady } from './join/node-ready.js';
import { ensureAuditPolicyFile } from './audit-policy-file.js';
import { Supervisor } from './supervisor.js';
import { API_SERVER_V8_FLAGS } from './apiserver-v8-flags.js';
import { parsePort } from './port-flag.js';
import { onStopSignal } from './stop-signal.js';

interface ServerFlags extends StorageFlags {
  securePort: number;
  serviceClusterIpRange: string;
  clusterCidr: string;
  nodeIp: string;
  nodeMonitorGracePeriod?: string;
  controllerManagerArg: string[];
  apiserverArg: string[];
  authorizationMode: string;
  schedulerArg: string[];
  auditLogPath?: string;
  auditPolicyFile?: string;
  disableAgent: boolean;
  kubeletArg: string[];
  disableProxy: boolean;
  proxyArg: string[];
  clusterDnsPort?: number;
  clusterDomain: string;
  nodeReadyTimeout: number;
}

/** The API server's --authorization-mode in `k8ts server`, as upstream clusters run it: kubelets by the Node authorizer, everyone else by RBAC. */
export const SERVER_AUTHORIZATION_MODE = 'Node,RBAC';

/** Admission plugins `k8ts server` turns on besides the API server's defaults, as upstream clusters do. */
export const SERVER_ADMISSION_PLUGINS = ['NodeRestriction'];

/**
 * The API server's --enable-admission-plugins under `k8ts server`. A
 * pass-through --enable-admission-plugins or --disable-admission-plugins
 * (--apiserver-arg) takes over the choice entirely, so that it can also turn
 * NodeRestriction off.
 */
export function admissionArgs(apiserverArg: readonly string[]): string[] {
  if (apiserverArg.some((arg) => /^--(enable|disable)-admission-plugins(=|$)/.test(arg))) return [];
  return ['--enable-admission-plugins', SERVER_ADMISSION_PLUGINS.join(',')];
}

export function serverCommand(): Command {
  const command = new Command('server').description('run a cluster on this machine (the main job of `npm start`)');
  addStorageFlags(command, '.k8ts')
    .addOption(new Option('--secure-port <port>', 'HTTPS port of the API server (0: pick a free one)').default(6443).argParser(parsePort))
    .addOption(new Option('--service-cluster-ip-range <cidr>', 'the range Service clusterIPs come from').default(DEFAULT_SERVICE_CLUSTER_IP_RANGE))
    .addOption(new Option('--node-ip <ip>', 'this node\'s address').default(DEFAULT_NODE_IP))
    .addOption(new Option('--cluster-cidr <cidr>', 'the range pod addresses come from (node IPAM gives each node a /24 of it)').default(DEFAULT_CLUSTER_CIDR))
    .addOption(
      new Option('--node-monitor-grace-period <duration>', 'passed to the controller manager: a node not heard from this long is Ready=Unknown (default 40s)').argParser((value: string) => {
        durationFlag(value); // refuse a bad value here, not in a crash loop of the child
        return value;
      }),
    )
    .addOption(
      new Option('--authorization-mode <modes>', 'passed to the API server: ordered list of authorization plug-ins')
        .default(SERVER_AUTHORIZATION_MODE)
        .argParser((value: string) => {
          parseAuthorizationModes(value); // refuse a bad value here, not in a crash loop of the child
          return value;
        }),
    )
    .addOption(
      new Option('--controller-manager-arg <arg>', 'pass one more flag to the controller manager, e.g. --controller-manager-arg=--leader-elect-retry-period=1s (repeatable)')
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => [...previous, value]),
    )
    .addOption(
      new Option('--apiserver-arg <arg>', 'pass one more flag to the API server, e.g. --apiserver-arg=--token-auth-file=/path/tokens.csv (repeatable)')
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => [...previous, value]),
    )
    .addOption(
      new Option('--kubelet-arg <arg>', 'pass one more flag to the kubelet, e.g. --kubelet-arg=--node-status-update-frequency=1s (repeatable)')
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => [...previous, value]),
    )
    .addOption(new Option('--cluster-dns-port <port>', 'port of the cluster DNS (k8ts dns) on the node IP, UDP and TCP (default: a free one; 53 needs root)').argParser(parsePort))
    .addOption(new Option('--cluster-domain <domain>', 'the cluster DNS domain (passed to k8ts dns and the kubelet)').default(DEFAULT_CLUSTER_DOMAIN))
    .addOption(
      new Option('--node-ready-timeout <duration>', 'how long the progress display waits for this node to be Ready before it goes on').default(30_000, '30s').argParser((value: string) => durationFlag(value)),
    )
    .addOption(new Option('--disable-agent', 'run no kubelet and no proxy: this machine is no node of the cluster (as k3s\'s --disable-agent)').default(false))
    .addOption(new Option('--disable-proxy', 'run no kube-proxy (a second node on this machine: only one userspace proxy can own the Service addresses)').default(false))
    .addOption(
      new Option('--proxy-arg <arg>', 'pass one more flag to the kube-proxy, e.g. --proxy-arg=--min-sync-period=0s (repeatable)')
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => [...previous, value]),
    )
    .addOption(
      new Option('--scheduler-arg <arg>', 'pass one more flag to the scheduler, e.g. --scheduler-arg=--leader-elect-retry-period=1s (repeatable)')
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => [...previous, value]),
    );
  command
    .addOption(new Option('--audit-log-path <path>', 'the API server\'s audit log (default <data-dir>/logs/audit.log; empty: no audit log)'))
    .addOption(new Option('--audit-policy-file <path>', 'the audit policy (default <data-dir>/audit-policy.yaml, written with the built-in Metadata-level policy on first start)'));
  return command.action(async (flags: ServerFlags) => runServer(flags));
}

export { parsePort };

const out = (line: string): void => void process.stdout.write(`${line}\n`);

async function runServer(flags: ServerFlags): Promise<void> {
  const dataDir = resolve(flags.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const port = flags.securePort === 0 ? await freePort() : flags.securePort;
  if (flags.securePort !== 0 && !(await portIsFree(port))) {
    throw new Error(`port ${port} is already in use: stop what holds it, or pass --secure-port 0 to pick a free port`);
  }
  const serverUrl = `https://${flags.nodeIp}:${port}`;
  const etcdServers = etcdServersFromFlags(flags); // refuse --datastore with --etcd-servers before starting anything
  out(`k8ts server: data directory ${dataDir}`);
  // The kubelet's default node name (upstream's: the host name, lower-cased); its certificate names system:node:<it>.
  const nodeName = hostname().toLowerCase();
  const pki = await ensureClusterPki({
    dataDir,
    serverUrl,
    nodeIps: [flags.nodeIp],
    hostName: hostname(),
    serviceClusterIp: kubernetesServiceIP(flags.serviceClusterIpRange),
    nodeName,
  });
  out(`pki: ${pki.written.length > 0 ? `wrote ${pki.written.length} files in` : 'reusing'} ${pki.pkiDir}`);
  out(`store: ${describeStorage(storageConfigFromFlags({ ...flags, dataDir }))}`);

  const supervisor = new Supervisor(join(dataDir, 'logs'), {
    onStart: (name, pid) => out(`${name}: started (pid ${pid})`),
    onExit: (name, code, signal, restartInMs) => {
      if (restartInMs !== undefined) out(`${name}: exited (${signal ?? `code ${code}`}); restarting in ${restartInMs} ms`);
    },
  });
  const storageArgs = [
    '--data-dir',
    dataDir,
    '--etcd-prefix',
    flags.etcdPrefix,
    ...(etcdServers !== undefined ? ['--etcd-servers', etcdServers.join(',')] : []),
  ];
  // Their ports are picked before the API server starts: ComponentStatus probes their /healthz there.
  const controllerManagerPort = await freePort();
  const scheduler = schedulerArgs(flags, pki.kubeconfigs.scheduler, await freePort());
  supervisor.start({
    name: 'apiserver',
    v8Flags: API_SERVER_V8_FLAGS,
    args: [
      'apiserver',
      ...storageArgs,
      '--secure-port',
      String(port),
      '--advertise-address',
      flags.nodeIp,
      '--service-cluster-ip-range',
      flags.serviceClusterIpRange,
      '--tls-cert-file',
      pki.servingCert,
      '--tls-private-key-file',
      pki.servingKey,
      '--client-ca-file',
      pki.caCert,
      // The API server's identity towards kubelets (pods/log, exec, attach, port-forward), and the CA of their serving certificates.
      '--kubelet-client-certificate',
      pki.apiserverKubeletClient.cert,
      '--kubelet-client-key',
      pki.apiserverKubeletClient.key,
      '--kubelet-certificate-authority',
      pki.caCert,
      '--service-account-key-file',
      pki.serviceAccountKey.publicKey,
      '--service-account-signing-key-file',
      pki.serviceAccountKey.privateKey,
      '--authorization-mode',
      flags.authorizationMode,
      // Joining nodes authenticate with bootstrap tokens (k8ts token create; `k8ts agent --token`).
      '--enable-bootstrap-token-auth',
      '--component-status-scheduler-url',
      `http://127.0.0.1:${scheduler.port}/healthz`,
      '--component-status-controller-manager-url',
      `http://127.0.0.1:${controllerManagerPort}/healthz`,
      ...admissionArgs(flags.apiserverArg),
      ...auditArgs(flags, dataDir),
      ...flags.apiserverArg,
    ],
  });

  const { stopped, stopping } = onStopSignal();
  const ready = await Promise.race([waitReady(serverUrl, pki.caCert, stopping).then(() => true), stopped.then(() => false)]);
  if (ready) {
    out(`api server: ready at ${serverUrl} (log: ${join(dataDir, 'logs', 'apiserver.log')})`);
    supervisor.start({ name: 'controller-manager', args: controllerManagerArgs(flags, pki.kubeconfigs.controllerManager, controllerManagerPort, pki.caCert, pki.caKey) });
    out(`controller-manager: /healthz and /metrics on http://127.0.0.1:${controllerManagerPort} (log: ${join(dataDir, 'logs', 'controller-manager.log')})`);
    supervisor.start({ name: 'scheduler', args: scheduler.args });
    out(`scheduler: /healthz and /metrics on http://127.0.0.1:${scheduler.port} (log: ${join(dataDir, 'logs', 'scheduler.log')})`);
    const dns = dnsArgs(flags, pki.kubeconfigs.dns, { port: flags.clusterDnsPort ?? (await freeDnsPort(flags.nodeIp)), healthPort: await freePort() });
    supervisor.start({ name: 'dns', args: dns.args });
    out(`dns: ${flags.clusterDomain} on ${flags.nodeIp}:${dns.port} (udp and tcp); /healthz, /readyz and /metrics on http://127.0.0.1:${dns.healthPort} (log: ${join(dataDir, 'logs', 'dns.log')})`);
    if (flags.disableAgent) {
      out('kubelet: not started (--disable-agent): this machine runs no pods');
    } else {
      const kubelet = kubeletArgs(flags, {
        dataDir,
        nodeName,
        kubeconfig: pki.kubeconfigs.kubelet,
        clientCaFile: pki.caCert,
        port: await freePort(),
        servingCert: { cert: pki.kubeletServingCert, key: pki.kubeletServingKey },
        clusterDns: { ip: flags.nodeIp, domain: flags.clusterDomain },
      });
      mkdirSync(join(dataDir, 'manifests'), { recursive: true });
      supervisor.start({ name: 'kubelet', args: kubelet });
      out(`kubelet: node ${nodeName}, ${describeKubeletRuntime(flags.kubeletArg)} (log: ${join(dataDir, 'logs', 'kubelet.log')})`);
      void labelControlPlaneNode(pki.adminKubeconfig, nodeName, stopping).then(
        (labelled) => labelled && out(`kubelet: node ${nodeName} registered, labelled ${CONTROL_PLANE_LABEL}`),
        (e: unknown) => out(`kubelet: could not label node ${nodeName} ${CONTROL_PLANE_LABEL}: ${e instanceof Error ? e.message : String(e)}`),
      );
      if (flags.disableProxy) out('proxy: not started (--disable-proxy)');
      else {
        const metricsPort = await freePort();
        supervisor.start({ name: 'proxy', args: proxyArgs(flags, { kubeconfig: pki.kubeconfigs.proxy, nodeName, metricsPort }) });
        out(`proxy: node ${nodeName}, userspace on ${flags.nodeIp}; /metrics on http://127.0.0.1:${metricsPort} (log: ${join(dataDir, 'logs', 'proxy.log')})`);
      }
    }
    const admin = newHttpClient(restConfigFromKubeconfig(pki.adminKubeconfig, { userAgent: 'k8ts-server' }));
    try {
      const joinToken = await publishJoinInfo(admin, { dataDir, serverUrl, caPem: readFileSync(pki.caCert, 'utf8'), cancelled: stopping, onRetry: (m) => out(`join: not yet (${m}); trying again`) }).catch((e: unknown) => {
        out(`join: ${e instanceof Error ? e.message : String(e)} (nodes cannot join until the next start)`);
        return undefined;
      });
      if (joinToken !== undefined) {
        out(`join: cluster-info published in ${CLUSTER_INFO_NAMESPACE}; join token ${joinToken.token.id} ${joinToken.reused ? 'reused' : 'made'}, ${joinToken.expires === undefined ? 'never expires' : `expires ${joinToken.expires.toISOString()}`}`);
      }
      if (!flags.disableAgent && !stopping()) {
        const result = await waitForNodeReady(admin, nodeName, { timeoutMs: flags.nodeReadyTimeout, cancelled: stopping });
        if (result === 'ready') out(`node: ${nodeName} Ready`);
        else if (result === 'timeout') out(`node: ${nodeName} not Ready after ${formatDurationMs(flags.nodeReadyTimeout)} (see ${join(dataDir, 'logs', 'kubelet.log')})`);
      }
      if (!stopping()) {
        out('');
        out(`export KUBECONFIG=${pki.adminKubeconfig}`);
        out('kubectl get namespaces');
        out('kubectl get nodes');
        if (joinToken !== undefined) {
          out(`join another node with (k8ts token create --print-join-command makes more tokens):`);
          out(formatJoinCommand({ server: serverUrl, token: formatBootstrapToken(joinToken.token), caCertHash: caCertHash(readFileSync(pki.caCert, 'utf8')) }));
        }
      }
    } finally {
      admin.close();
    }
  }
  await stopped;
  out('stopping…');
  await supervisor.stop();
  out('stopped');
}

/**
 * What joining nodes need from the cluster, written with the admin identity
 * once the API server is ready: kube-public/cluster-info (the server URL and
 * CA, no user), the join RBAC (join/join-rbac.ts) and the server's join
 * token. Retries until it succeeds (a namespace may not exist yet just after
 * the first start); undefined when stopped first.
 */
export async function publishJoinInfo(
  client: Client,
  o: { readonly dataDir: string; readonly serverUrl: string; readonly caPem: string; readonly cancelled: () => boolean; readonly retryMs?: number; readonly timeoutMs?: number; readonly onRetry?: (message: string) => void },
): Promise<(JoinTokenInfo & { reused: boolean }) | undefined> {
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  let lastMessage = '';
  while (!o.cancelled()) {
    try {
      await ensureObject(client, CONFIG_MAPS, clusterInfoConfigMap({ server: o.serverUrl, caPem: o.caPem }));
      await ensureJoinRbac(client);
      return await ensureServerJoinToken(client, o.dataDir);
    } catch (e: unknown) {
      const message = e instanceof Error ? e.message : String(e);
      if (Date.now() > deadline) throw new Error(`could not publish the join information: ${message}`, { cause: e });
      if (message !== lastMessage) o.onRetry?.(message);
      lastMessage = message;
      await new Promise((r) => setTimeout(r, o.retryMs ?? 250));
    }
  }
  return undefined;
}

/** The label of the server's own node (DESIGN §5: it runs workloads, with no control-plane taint, as k3s). */
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

/**
 * The kubelet's command line under `k8ts server`: the node's identity from the
 * PKI, its address, its files under the data directory (kubelet/, manifests/,
 * images/), the cluster CA for the clients of its server (the API server),
 * and the pass-through flags (later ones win, so they can override these).
 */
export function kubeletArgs(
  flags: Pick<ServerFlags, 'nodeIp' | 'kubeletArg'>,
  where: {
    readonly dataDir: string;
    readonly nodeName: string;
    readonly kubeconfig: string;
    readonly clientCaFile: string;
    readonly port: number;
    /** The kubelet's serving certificate from the PKI; without it the kubelet makes a self-signed one. */
    readonly servingCert?: { readonly cert: string; readonly key: string };
    /** The cluster DNS the kubelet writes into pods' resolv.conf (--cluster-dns, --cluster-domain). */
    readonly clusterDns?: { readonly ip: string; readonly domain: string };
  },
): string[] {
  return [
    'kubelet',
    '--kubeconfig',
    where.kubeconfig,
    '--node-name',
    where.nodeName,
    '--node-ip',
    flags.nodeIp,
    '--root-dir',
    join(where.dataDir, 'kubelet'),
    '--pod-manifest-path',
    join(where.dataDir, 'manifests'),
    '--images-dir',
    defaultImagesDir(where.dataDir),
    '--client-ca-file',
    where.clientCaFile,
    ...(where.servingCert !== undefined ? ['--tls-cert-file', where.servingCert.cert, '--tls-private-key-file', where.servingCert.key] : []),
    '--port',
    String(where.port),
    ...(where.clusterDns !== undefined ? ['--cluster-dns', where.clusterDns.ip, '--cluster-domain', where.clusterDns.domain] : []),
    ...flags.kubeletArg,
  ];
}

/** The kube-proxy's command line under `k8ts server`: its identity (system:kube-proxy), the node's name and IP, and the pass-through flags. */
export function proxyArgs(flags: Pick<ServerFlags, 'nodeIp' | 'proxyArg'>, where: { readonly kubeconfig: string; readonly nodeName: string; readonly metricsPort: number }): string[] {
  return ['proxy', '--kubeconfig', where.kubeconfig, '--hostname-override', where.nodeName, '--bind-address', flags.nodeIp, '--metrics-bind-address', `127.0.0.1:${where.metricsPort}`, ...flags.proxyArg];
}

/** What `k8ts server` says about the kubelet's runtime. */
export function describeKubeletRuntime(kubeletArg: readonly string[]): string {
  let runtime = 'process';
  kubeletArg.forEach((arg, i) => {
    if (arg.startsWith('--container-runtime=')) runtime = arg.slice('--container-runtime='.length);
    else if (arg === '--container-runtime' && kubeletArg[i + 1] !== undefined) runtime = kubeletArg[i + 1]!;
  });
  if (runtime === 'process') return 'process runtime (no containerd socket configured): containers are host processes, see src/kubelet/runtime/process/README.md';
  return `${runtime} runtime`;
}

/**
 * Labels the server's own node node-role.kubernetes.io/control-plane="" with
 * the admin identity once the kubelet has registered it: NodeRestriction
 * forbids a kubelet that label, so (as kubeadm and k3s do) the server sets it.
 * Resolves false when stopped first.
 */
export async function labelControlPlaneNode(adminKubeconfig: string, nodeName: string, cancelled: () => boolean): Promise<boolean> {
  const client = newHttpClient(restConfigFromKubeconfig(adminKubeconfig, { userAgent: 'k8ts-server' }));
  const nodes = client.resource(NODES);
  try {
    while (!cancelled()) {
      try {
        const node = await nodes.get(nodeName);
        if (node.metadata.labels?.[CONTROL_PLANE_LABEL] === undefined) await nodes.patch(nodeName, 'merge', { metadata: { labels: { [CONTROL_PLANE_LABEL]: '' } } });
        return true;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return false;
  } finally {
    client.close();
  }
}

/** Audit flags of the API server under `k8ts server`: on by default, rotated at 100 MB keeping 5 files. */
export function auditArgs(flags: Pick<ServerFlags, 'auditLogPath' | 'auditPolicyFile'>, dataDir: string): string[] {
  const path = flags.auditLogPath ?? join(dataDir, 'logs', 'audit.log');
  if (path === '') return [];
  const policy = flags.auditPolicyFile ?? ensureAuditPolicyFile(dataDir);
  return ['--audit-log-path', path, '--audit-policy-file', policy, '--audit-log-maxsize', '100', '--audit-log-maxbackup', '5'];
}

/** The controller manager's command line under `k8ts server`: its own identity, the cluster's pod range, the cluster CA to publish, and the pass-through flags. */
export function controllerManagerArgs(
  flags: Pick<ServerFlags, 'clusterCidr' | 'nodeMonitorGracePeriod' | 'controllerManagerArg'>,
  kubeconfig: string,
  port: number,
  caCert: string,
  caKey: string,
): string[] {
  const ownControllers = flags.controllerManagerArg.some((arg) => /^--controllers(=|$)/.test(arg));
  return [
    'controller-manager',
    '--kubeconfig',
    kubeconfig,
    '--secure-port',
    String(port),
    '--cluster-cidr',
    flags.clusterCidr,
    '--root-ca-file',
    caCert,
    // The CSR signer issues joining nodes' certificates from the cluster CA; as kubeadm, the bootstrap signer signs
    // cluster-info with each join token and the token cleaner removes expired tokens (both off by default upstream).
    '--cluster-signing-cert-file',
    caCert,
    '--cluster-signing-key-file',
    caKey,
    ...(ownControllers ? [] : ['--controllers', '*,bootstrapsigner,tokencleaner']),
    ...(flags.nodeMonitorGracePeriod !== undefined ? ['--node-monitor-grace-period', flags.nodeMonitorGracePeriod] : []),
    ...flags.controllerManagerArg,
  ];
}

/**
 * The scheduler's command line under `k8ts server`: its own identity
 * (system:kube-scheduler), a free port for /healthz and /metrics unless the
 * pass-through flags give one, and the pass-through flags.
 */
export function schedulerArgs(flags: Pick<ServerFlags, 'schedulerArg'>, kubeconfig: string, freePortNumber: number): { args: string[]; port: number } {
  const given = [...flags.schedulerArg].reverse().find((arg) => /^--secure-port(=|$)/.test(arg));
  if (given !== undefined) {
    const inline = /^--secure-port=(.*)$/.exec(given)?.[1];
    const value = inline ?? flags.schedulerArg[flags.schedulerArg.lastIndexOf(given) + 1];
    return { args: ['scheduler', '--kubeconfig', kubeconfig, ...flags.schedulerArg], port: value === undefined ? freePortNumber : parsePort(value) };
  }
  return { args: ['scheduler', '--kubeconfig', kubeconfig, '--secure-port', String(freePortNumber), ...flags.schedulerArg], port: freePortNumber };
}

/** The cluster DNS's command line under `k8ts server`: its own identity (system:coredns), the node IP, the ports. */
export function dnsArgs(
  flags: Pick<ServerFlags, 'nodeIp' | 'clusterDomain'>,
  kubeconfig: string,
  ports: { readonly port: number; readonly healthPort: number },
): { args: string[]; port: number; healthPort: number } {
  return {
    args: ['dns', '--kubeconfig', kubeconfig, '--bind-address', flags.nodeIp, '--port', String(ports.port), '--cluster-domain', flags.clusterDomain, '--metrics-bind-address', `127.0.0.1:${ports.healthPort}`],
    ...ports,
  };
}

/** A port free for both TCP and UDP on `host` (the DNS listens on both). */
async function freeDnsPort(host: string): Promise<number> {
  for (;;) {
    const port = await freePort(host);
    const udpFree = await new Promise<boolean>((done) => {
      const socket = createSocket('udp4');
      socket.once('error', () => done(false));
      socket.bind(port, host, () => socket.close(() => done(true)));
    });
    if (udpFree) return port;
  }
}

/** Poll /readyz until it answers 200 (a condition, not a fixed wait). */
async function waitReady(serverUrl: string, caFile: string, cancelled: () => boolean): Promise<void> {
  const ca = readFileSync(caFile, 'utf8');
  const deadline = Date.now() + 120_000;
  while (!cancelled()) {
    const status = await new Promise<number>((done) => {
      const req = request(`${serverUrl}/readyz`, { ca, timeout: 2000 }, (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      });
      req.on('error', () => done(0));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the API server did not become ready at ${serverUrl} within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
