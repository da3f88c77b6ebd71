/**
 * `k8ts apiserver`: the API server alone, with upstream's flag names. Without
 * --tls-cert-file it makes (or reuses) the cluster PKI in the data directory;
 * without --etcd-servers it keeps the state in <data-dir>/db/state.db.
 */
import { DEFAULT_CONTROLLER_MANAGER_URL, DEFAULT_SCHEDULER_URL } from '../apiserver/registry/core/componentstatus/components.js';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { hostname } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseGoDuration } from '../api/protobuf/go-values.js';
import { startApiServer } from '../apiserver/apiserver.js';
import type { KubeletClientConfig } from '../apiserver/kubelet/kubelet-client.js';
import { parseAuthorizationModes, type AuthorizationMode } from '../apiserver/auth/authorizers/modes.js';
import type { Auditor } from '../apiserver/audit/auditor.js';
import { newLogBackend } from '../apiserver/audit/log-backend.js';
import { loadAuditPolicy, newPolicyEvaluator } from '../apiserver/audit/policy.js';
import { newLogger, type Logger } from '../machinery/logger.js';
import { describeStorage, openStorage } from '../storage/open-storage.js';
import { DEFAULT_NODE_IP, DEFAULT_SERVICE_CLUSTER_IP_RANGE, freePort, kubernetesServiceIP } from './network-defaults.js';
import { ensureClusterPki } from './pki/cluster-pki.js';
import { primaryStorage, serveHandedConnections, startWorkerPool, workerNumber, type WorkerPool } from './apiserver-workers.js';
import { ensureServiceAccountKey } from './pki/service-account-key.js';
import { addAuthenticationFlags, authenticationConfigFromFlags, type AuthenticationFlags } from './authentication-flags.js';
import { addAuthorizationWebhookFlags, authorizationWebhookFromFlags, type AuthorizationWebhookFlags } from './authorization-webhook-flags.js';
import { join } from 'node:path';
import { parsePort } from './port-flag.js';
import { addStorageFlags, storageConfigFromFlags, type StorageFlags } from './storage-flags.js';

interface ApiServerFlags extends StorageFlags, AuthenticationFlags, AuthorizationWebhookFlags {
  securePort: number;
  componentStatusSchedulerUrl: string;
  componentStatusControllerManagerUrl: string;
  bindAddress: string;
  advertiseAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  serviceClusterIpRange: string;
  serviceNodePortRange: string;
  etcdCompactionInterval: number;
  authorizationMode: AuthorizationMode[];
  auditLogPath?: string;
  auditPolicyFile?: string;
  auditLogMaxsize: number;
  auditLogMaxbackup: number;
  auditLogMaxage: number;
  auditLogFormat: string;
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  kubeletClientCertificate?: string;
  kubeletClientKey?: string;
  kubeletCertificateAuthority?: string;
  workers: number;
}

export function apiserverCommand(): Command {
  const command = new Command('apiserver').description('run the API server: the cluster\'s single gateway, the only component that touches storage');
  addStorageFlags(command, '.k8ts')
    .addOption(new Option('--secure-port <port>', 'HTTPS port').default(6443).argParser(parsePort))
    .addOption(new Option('--bind-address <ip>', 'address to listen on').default('0.0.0.0'))
    .addOption(new Option('--advertise-address <ip>', 'address the cluster reaches this server at').default(DEFAULT_NODE_IP))
    .addOption(new Option('--tls-cert-file <path>', 'serving certificate (default: <data-dir>/pki/apiserver.crt, made if missing)'))
    .addOption(new Option('--tls-private-key-file <path>', 'serving key'))
    .addOption(new Option('--client-ca-file <path>', 'CA that signs client certificates (default: <data-dir>/pki/ca.crt)'))
    .addOption(new Option('--service-cluster-ip-range <cidr>', 'the range Service clusterIPs come from').default(DEFAULT_SERVICE_CLUSTER_IP_RANGE))
    .addOption(new Option('--service-node-port-range <range>', 'the range of ports NodePort and LoadBalancer Services get node ports from').default('30000-32767'))
    .addOption(
      new Option('--authorization-mode <modes>', 'ordered list of plug-ins to do authorization on the secure port: AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook (ABAC: not supported)')
        .default(['AlwaysAllow'], 'AlwaysAllow')
        .argParser(parseModesFlag),
    )
    .addOption(
      new Option('--etcd-compaction-interval <duration>', 'how often the embedded store is compacted (0 disables it)')
        .default(5 * 60 * 1000, '5m0s')
        .argParser(parseCompactionInterval),
    )
    .addOption(new Option('--audit-log-path <path>', 'write audit events to this file (- for standard output); needs --audit-policy-file'))
    .addOption(new Option('--audit-policy-file <path>', 'the audit policy (audit.k8s.io/v1 Policy, YAML or JSON): which requests are logged, at which level'))
    .addOption(new Option('--audit-log-maxsize <MB>', 'rotate the audit log before it passes this many megabytes (0: never)').default(0).argParser(nonNegativeInt('--audit-log-maxsize')))
    .addOption(new Option('--audit-log-maxbackup <count>', 'keep at most this many rotated audit logs (0: all)').default(0).argParser(nonNegativeInt('--audit-log-maxbackup')))
    .addOption(new Option('--audit-log-maxage <days>', 'remove rotated audit logs older than this many days (0: never)').default(0).argParser(nonNegativeInt('--audit-log-maxage')))
    .addOption(new Option('--enable-admission-plugins <names>', 'admission plugins to run besides the default ones (comma-separated upstream names)').default([], 'none').argParser(commaList))
    .addOption(new Option('--disable-admission-plugins <names>', 'default admission plugins not to run (comma-separated upstream names)').default([], 'none').argParser(commaList))
    .addOption(new Option('--kubelet-client-certificate <path>', 'client certificate the API server presents to kubelets (logs, exec, attach, port-forward)'))
    .addOption(new Option('--kubelet-client-key <path>', 'key of --kubelet-client-certificate'))
    .addOption(new Option('--kubelet-certificate-authority <path>', 'CA that signs kubelet serving certificates (without it they are not checked, as upstream)'))
    .addOption(new Option('--audit-log-format <format>', 'format of the audit log: json').default('json').choices(['json']))
    .addOption(
      new Option('--workers <count>', 'API server processes sharing the port and the store (k8ts; each runs on its own core; see apiserver-workers.ts)')
        .default(1)
        .argParser(workerCount),
    );
  // k8ts: where ComponentStatus finds the scheduler and the controller manager (upstream probes fixed ports;
  // `k8ts server` starts them on ports it picks and passes their URLs here).
  command
    .addOption(new Option('--component-status-scheduler-url <url>', 'health URL kubectl get componentstatuses probes for the scheduler (k8ts)').default(DEFAULT_SCHEDULER_URL))
    .addOption(
      new Option('--component-status-controller-manager-url <url>', 'health URL kubectl get componentstatuses probes for the controller manager (k8ts)').default(
        DEFAULT_CONTROLLER_MANAGER_URL,
      ),
    );
  addAuthenticationFlags(command);
  addAuthorizationWebhookFlags(command);
  return command.action(async (flags: ApiServerFlags) => runApiServer(flags));
}

function parseModesFlag(text: string): AuthorizationMode[] {
  try {
    return parseAuthorizationModes(text);
  } catch (e: unknown) {
    throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
  }
}

function commaList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function workerCount(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 64) throw new InvalidArgumentError(`--workers must be a whole number from 1 to 64, not "${text}"`);
  return Number(text);
}

function nonNegativeInt(flag: string): (text: string) => number {
  return (text) => {
    if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`${flag} must be a whole number, not "${text}"`);
    return Number(text);
  };
}

/** The auditor of --audit-log-path and --audit-policy-file, or undefined when auditing is off (as upstream: both are needed). */
async function auditorFromFlags(flags: ApiServerFlags, log: Logger): Promise<Auditor | undefined> {
  if (flags.auditLogPath === undefined || flags.auditLogPath === '') return undefined;
  if (flags.auditPolicyFile === undefined || flags.auditPolicyFile === '') {
    throw new Error('--audit-log-path needs --audit-policy-file: the policy says which requests to log and at which level');
  }
  const policy = await loadAuditPolicy(flags.auditPolicyFile);
  const backend = newLogBackend({
    path: flags.auditLogPath,
    maxSizeMB: flags.auditLogMaxsize,
    maxBackups: flags.auditLogMaxbackup,
    maxAgeDays: flags.auditLogMaxage,
    onError: (e: unknown) => log.error({ error: e instanceof Error ? e.message : String(e) }, 'writing the audit log failed'),
  });
  return { policy: newPolicyEvaluator(policy), backend };
}

/**
 * The kubelet client of --kubelet-client-certificate/--kubelet-client-key
 * (both or neither) and --kubelet-certificate-authority; without the flags,
 * the data directory's PKI when this command made it.
 */
function kubeletClientFromFlags(flags: ApiServerFlags, fromPki: { cert: string; key: string; ca: string } | undefined): KubeletClientConfig {
  if ((flags.kubeletClientCertificate === undefined) !== (flags.kubeletClientKey === undefined)) {
    throw new Error('--kubelet-client-certificate and --kubelet-client-key must be given together');
  }
  const certFile = flags.kubeletClientCertificate ?? fromPki?.cert;
  const keyFile = flags.kubeletClientKey ?? fromPki?.key;
  const caFile = flags.kubeletCertificateAuthority ?? (flags.kubeletClientCertificate === undefined ? fromPki?.ca : undefined);
  return {
    ...(certFile !== undefined ? { cert: readFileSync(certFile, 'utf8') } : {}),
    ...(keyFile !== undefined ? { key: readFileSync(keyFile, 'utf8') } : {}),
    ...(caFile !== undefined ? { ca: readFileSync(caFile, 'utf8') } : {}),
  };
}

/** A Go duration (`5m0s`, `2s`) in milliseconds, as upstream's flag takes it. */
function parseCompactionInterval(text: string): number {
  const ns = parseGoDuration(text);
  if (ns === undefined || ns < 0) throw new InvalidArgumentError(`invalid duration "${text}"`);
  return Math.round(ns / 1e6);
}

async function runApiServer(flags: ApiServerFlags): Promise<void> {
  const worker = workerNumber();
  const log = newLogger(worker === undefined ? 'apiserver' : `apiserver-worker-${worker}`);
  const authorizationWebhook = authorizationWebhookFromFlags(flags, flags.authorizationMode);
  mkdirSync(flags.dataDir, { recursive: true });
  // Port 0: pick a free port now, so that the kubeconfigs written below name the real one.
  if (flags.securePort === 0) flags.securePort = await freePort(flags.bindAddress === '0.0.0.0' ? '127.0.0.1' : flags.bindAddress);
  const serviceIP = kubernetesServiceIP(flags.serviceClusterIpRange);
  let tls: { cert: string; key: string; clientCA: string };
  // The data directory's own kubelet client certificate when the PKI is made here and no flag names one.
  let kubeletClientPki: { cert: string; key: string; ca: string } | undefined;
  if (flags.tlsCertFile !== undefined || flags.tlsPrivateKeyFile !== undefined) {
    if (flags.tlsCertFile === undefined || flags.tlsPrivateKeyFile === undefined || flags.clientCaFile === undefined) {
      throw new Error('--tls-cert-file, --tls-private-key-file and --client-ca-file must be given together');
    }
    tls = { cert: readFileSync(flags.tlsCertFile, 'utf8'), key: readFileSync(flags.tlsPrivateKeyFile, 'utf8'), clientCA: readFileSync(flags.clientCaFile, 'utf8') };
  } else {
    const pki = await ensureClusterPki({
      dataDir: flags.dataDir,
      serverUrl: `https://${flags.advertiseAddress}:${flags.securePort}`,
      nodeIps: [flags.advertiseAddress],
      hostName: hostname(),
      serviceClusterIp: serviceIP,
      nodeName: hostname(),
    });
    tls = { cert: readFileSync(pki.servingCert, 'utf8'), key: readFileSync(pki.servingKey, 'utf8'), clientCA: readFileSync(pki.caCert, 'utf8') };
    kubeletClientPki = { cert: pki.apiserverKubeletClient.cert, key: pki.apiserverKubeletClient.key, ca: pki.caCert };
    process.stdout.write(`export KUBECONFIG=${pki.adminKubeconfig}\n`);
  }
  // Without a signing key flag, the cluster's own (made on first start, as kubeadm's sa.key).
  if (flags.serviceAccountSigningKeyFile === undefined) {
    const sa = await ensureServiceAccountKey(join(flags.dataDir, 'pki'));
    flags.serviceAccountSigningKeyFile = sa.privateKey;
    if (flags.serviceAccountKeyFile.length === 0) flags.serviceAccountKeyFile = [sa.publicKey];
  }
  const kubeletClient = kubeletClientFromFlags(flags, kubeletClientPki);
  const auditor = await auditorFromFlags(flags, log);
  if (auditor !== undefined) log.info({ path: flags.auditLogPath, policy: flags.auditPolicyFile }, 'auditing');
  const config = { ...storageConfigFromFlags(flags), compactIntervalMs: flags.etcdCompactionInterval };
  // A worker on the embedded store reaches it through the primary, which holds the file.
  const viaPrimary = worker !== undefined && config.etcdServers === undefined;
  log.info({ store: describeStorage(config), ...(viaPrimary ? { through: 'the primary process' } : {}) }, 'opening the store');
  const storage = viaPrimary ? primaryStorage() : await openStorage(config);
  let pool: WorkerPool | undefined;
  let stopWorker: () => void = () => {};
  const server = await startApiServer({
    storage,
    storagePrefix: flags.etcdPrefix,
    tls,
    bindAddress: flags.bindAddress,
    securePort: flags.securePort,
    advertiseAddress: flags.advertiseAddress,
    kubernetesServiceIP: serviceIP,
    serviceClusterIPRange: flags.serviceClusterIpRange,
    serviceNodePortRange: flags.serviceNodePortRange,
    authentication: authenticationConfigFromFlags(flags),
    authorizationModes: flags.authorizationMode,
    ...(authorizationWebhook !== undefined ? { authorizationWebhook } : {}),
    log,
    ...(auditor !== undefined ? { auditor } : {}),
    admission: { enable: flags.enableAdmissionPlugins, disable: flags.disableAdmissionPlugins },
    kubeletClient,
    componentStatuses: {
      schedulerUrl: flags.componentStatusSchedulerUrl,
      controllerManagerUrl: flags.componentStatusControllerManagerUrl,
      ...(config.etcdServers !== undefined ? { etcdServers: config.etcdServers } : {}),
    },
    ...(worker !== undefined
      ? { connections: 'handed' as const }
      : flags.workers > 1
        ? { connections: { route: (socket: Socket, serveHere: (socket: Socket) => void) => (pool === undefined ? serveHere(socket) : pool.route(socket, serveHere)) } }
        : {}),
  });
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    stopWorker = stop;
  });
  if (worker !== undefined) {
    serveHandedConnections((socket) => server.accept(socket), () => stopWorker());
  } else {
    if (flags.workers > 1) {
      // The workers run this command line again, on the port bound here.
      const args = [process.argv[1]!, ...process.argv.slice(2), `--secure-port=${server.port}`];
      pool = startWorkerPool({ count: flags.workers - 1, args, storage: config.etcdServers === undefined ? storage : undefined, log });
    }
    process.stdout.write(`apiserver: serving on https://${flags.advertiseAddress}:${server.port}\n`);
  }
  await stopped;
  log.info('shutting down');
  // Workers first: their requests in flight still need the store this process holds.
  await pool?.stop();
  await server.close();
  await auditor?.backend.close();
  await storage.close();
  process.stdout.write('apiserver: stopped\n');
  // A worker's IPC channel would keep it running.
  if (worker !== undefined) process.disconnect?.();
}
