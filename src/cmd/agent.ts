/**
 * `k8ts agent`: a worker node that joins a cluster, as upstream's TLS
 * bootstrap and `kubeadm join` do it (join/node-bootstrap.ts): discovery
 * pinned by --ca-cert-hash, a client certificate as system:node:<name> asked
 * for with the bootstrap token, a kubelet serving certificate; then it runs
 * the node's kubelet and (unless --disable-proxy) kube-proxy as child
 * processes, restarts one that crashes, and stops them on SIGINT/SIGTERM.
 * They also end when the agent itself dies (supervisor.ts's lifeline).
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { newHttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import { durationFlag, formatDurationMs } from './go-duration.js';
import { parseCaCertHash } from './join/ca-cert-hash.js';
import { bootstrapNode, parseTokenFlag } from './join/node-bootstrap.js';
import { waitForNodeReady } from './join/node-ready.js';
import { DEFAULT_NODE_IP, freePort } from './network-defaults.js';
import { describeKubeletRuntime, kubeletArgs, proxyArgs } from './server.js';
import { Supervisor } from './supervisor.js';
import { onStopSignal } from './stop-signal.js';

export interface AgentFlags {
  server: string;
  token?: string;
  caCertHash: string[];
  unsafeSkipCaVerification: boolean;
  dataDir: string;
  nodeName: string;
  nodeIp: string;
  disableProxy: boolean;
  kubeletArg: string[];
  proxyArg: string[];
  csrTimeout: number;
  nodeReadyTimeout: number;
}

const repeatable = (value: string, previous: string[]): string[] => [...previous, value];
const duration = (value: string): number => {
  try {
    return durationFlag(value);
  } catch (e: unknown) {
    throw new InvalidArgumentError((e as Error).message);
  }
};

export function agentCommand(): Command {
  return new Command('agent')
    .description('join this machine to a cluster as a worker node: its own kubelet and kube-proxy (k8ts server prints the command)')
    .addOption(new Option('--server <url>', 'the API server to join, https://HOST:PORT').makeOptionMandatory())
    .addOption(new Option('--token <token>', 'bootstrap token <id>.<secret> (k8ts token create); needed only until the node has its credentials'))
    .addOption(
      new Option('--ca-cert-hash <sha256:hex>', "the cluster CA's public key hash: the node trusts the server only if it matches (repeatable)")
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => {
          try {
            return [...previous, parseCaCertHash(value)];
          } catch (e: unknown) {
            throw new InvalidArgumentError((e as Error).message);
          }
        }),
    )
    .addOption(new Option('--unsafe-skip-ca-verification', 'join without --ca-cert-hash, trusting the CA the server shows (as kubeadm\'s flag)').default(false))
    .addOption(new Option('--data-dir <dir>', "directory for the node's files (credentials, kubelet state, logs)").default('.k8ts-agent'))
    .addOption(new Option('--node-name <name>', "this node's name (default: the host name, lower-cased)").default(hostname().toLowerCase(), 'the host name'))
    .addOption(new Option('--node-ip <ip>', "this node's address (a second node on one machine: 127.0.0.2)").default(DEFAULT_NODE_IP))
    .addOption(new Option('--disable-proxy', 'run no kube-proxy (a second node on one machine: only one userspace proxy can own the Service addresses)').default(false))
    .addOption(new Option('--kubelet-arg <arg>', 'pass one more flag to the kubelet, e.g. --kubelet-arg=--node-status-update-frequency=1s (repeatable)').default([] as string[], 'none').argParser(repeatable))
    .addOption(new Option('--proxy-arg <arg>', 'pass one more flag to the kube-proxy (repeatable)').default([] as string[], 'none').argParser(repeatable))
    .addOption(new Option('--csr-timeout <duration>', 'how long to wait for each certificate signing request to be approved and signed').default(300_000, '5m').argParser(duration))
    .addOption(new Option('--node-ready-timeout <duration>', 'how long the progress display waits for the node to be Ready').default(60_000, '1m').argParser(duration))
    .action(async (flags: AgentFlags) => runAgent(flags));
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);

async function runAgent(flags: AgentFlags): Promise<void> {
  if (flags.token !== undefined) parseTokenFlag(flags.token); // refuse a malformed token before anything else
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(flags.nodeName)) throw new Error(`invalid --node-name "${flags.nodeName}": must be a lower-case DNS subdomain`);
  const dataDir = resolve(flags.dataDir);
  mkdirSync(dataDir, { recursive: true });
  out(`k8ts agent: data directory ${dataDir}, node ${flags.nodeName} at ${flags.nodeIp}, joining ${flags.server}`);
  const { paths } = await bootstrapNode({
    dataDir,
    server: flags.server,
    nodeName: flags.nodeName,
    nodeIp: flags.nodeIp,
    ...(flags.token !== undefined ? { token: flags.token } : {}),
    caCertHashes: flags.caCertHash,
    unsafeSkipCaVerification: flags.unsafeSkipCaVerification,
    csrTimeoutMs: flags.csrTimeout,
    log: out,
  });

  const { stopped, stopping } = onStopSignal();
  const supervisor = new Supervisor(join(dataDir, 'logs'), {
    onStart: (name, pid) => out(`${name}: started (pid ${pid})`),
    onExit: (name, code, signal, restartInMs) => {
      if (restartInMs !== undefined) out(`${name}: exited (${signal ?? `code ${code}`}); restarting in ${restartInMs} ms`);
    },
  });
  mkdirSync(join(dataDir, 'manifests'), { recursive: true });
  const kubeletPort = await freePort(flags.nodeIp);
  supervisor.start({
    name: 'kubelet',
    args: kubeletArgs(flags, {
      dataDir,
      nodeName: flags.nodeName,
      kubeconfig: paths.kubeconfig,
      clientCaFile: paths.caCert,
      port: kubeletPort,
      servingCert: { cert: paths.servingCert, key: paths.servingKey },
    }),
  });
  out(`kubelet: node ${flags.nodeName} on ${flags.nodeIp}:${kubeletPort}, ${describeKubeletRuntime(flags.kubeletArg)} (log: ${join(dataDir, 'logs', 'kubelet.log')})`);
  if (flags.disableProxy) out('proxy: not started (--disable-proxy)');
  else {
    const metricsPort = await freePort();
    // The node's own identity: k8ts server binds system:node-proxier to group system:nodes (join/join-rbac.ts).
    supervisor.start({ name: 'proxy', args: proxyArgs(flags, { kubeconfig: paths.kubeconfig, nodeName: flags.nodeName, metricsPort }) });
    out(`proxy: node ${flags.nodeName}, userspace on ${flags.nodeIp}; /metrics on http://127.0.0.1:${metricsPort} (log: ${join(dataDir, 'logs', 'proxy.log')})`);
  }

  const client = newHttpClient(restConfigFromKubeconfig(paths.kubeconfig, { userAgent: 'k8ts-agent' }));
  void waitForNodeReady(client, flags.nodeName, { timeoutMs: flags.nodeReadyTimeout, cancelled: stopping })
    .then((result) => {
      if (result === 'ready') out(`node: ${flags.nodeName} Ready`);
      else if (result === 'timeout') out(`node: ${flags.nodeName} not Ready after ${formatDurationMs(flags.nodeReadyTimeout)} (see ${join(dataDir, 'logs', 'kubelet.log')})`);
    })
    .finally(() => client.close());

  await stopped;
  out('stopping…');
  await supervisor.stop();
  out('stopped');
}
