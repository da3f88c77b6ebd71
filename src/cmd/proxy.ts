/**
 * `k8ts proxy`: the kube-proxy. It watches Services and EndpointSlices with
 * the identity of --kubeconfig (system:kube-proxy under `k8ts server`, bound
 * to system:node-proxier) and programs this node so that a connection to a
 * Service reaches one of its ready endpoints, in the mode --proxy-mode names
 * (userspace: forwarders in this process, no root). /metrics and /healthz are
 * served on --metrics-bind-address. Flag names are upstream's.
 *
 * SIGINT/SIGTERM close every listener and exit 0.
 */
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { Command, Option } from 'commander';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { newHttpClient } from '../client/rest/http-client.js';
import type { Client } from '../client/rest/interface.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import { NODES } from '../client/rest/resources.js';
import { newLogger, type Logger } from '../machinery/logger.js';
import type { Proxier, ProxyMode } from '../proxy/interface.js';
import { nodePortAddresses } from '../proxy/node-port-addresses.js';
import { DEFAULT_MIN_SYNC_PERIOD_MS, DEFAULT_SYNC_PERIOD_MS, newProxyRunner } from '../proxy/proxy-runner.js';
import { newUserspaceProxier } from '../proxy/userspace/userspace-proxier.js';
import { serveHealthAndMetrics } from './health-metrics-server.js';
import { durationFlag } from './go-duration.js';

export interface ProxyFlags {
  kubeconfig?: string;
  hostnameOverride?: string;
  proxyMode: ProxyMode;
  bindAddress: string;
  metricsBindAddress: string;
  nodeportAddresses: string[];
  minSyncPeriod?: number;
  syncPeriod?: number;
  iptablesMinSyncPeriod?: number;
  iptablesSyncPeriod?: number;
  udpTimeout: number;
}

const MODES: readonly ProxyMode[] = ['userspace', 'iptables', 'nftables', 'ipvs'];
/** Upstream's --metrics-bind-address default. */
export const DEFAULT_METRICS_BIND_ADDRESS = '127.0.0.1:10249';

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** `host:port` (IPv6 in brackets) → its parts; an Error naming the flag otherwise. */
export function parseHostPort(value: string, flag: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || port > 65535) throw new Error(`invalid ${flag} "${value}": use IP:PORT, e.g. ${DEFAULT_METRICS_BIND_ADDRESS}`);
  return { host: match[1] ?? (match[2] === '' ? '0.0.0.0' : match[2]!), port };
}

export function addProxyFlags(command: Command): Command {
  return command
    .addOption(new Option('--kubeconfig <path>', 'kubeconfig with the proxy\'s identity and the API server\'s address'))
    .addOption(new Option('--hostname-override <name>', 'this node\'s name (default: the host name, lower-cased): endpoints on it are local'))
    .addOption(
      new Option('--proxy-mode <mode>', 'which proxy mode to use: userspace (forwarders in this process; needs no root)')
        .default('userspace')
        .argParser((value: string) => {
          if (!MODES.includes(value as ProxyMode)) throw new Error(`invalid --proxy-mode "${value}": use one of ${MODES.join(', ')}`);
          return value;
        }),
    )
    .addOption(new Option('--bind-address <ip>', 'this node\'s IP, where node ports are served (0.0.0.0: the Node object\'s InternalIP)').default('0.0.0.0'))
    .addOption(
      new Option('--metrics-bind-address <ip:port>', 'where /metrics and /healthz are served (port 0: a free one)')
        .default(DEFAULT_METRICS_BIND_ADDRESS)
        .argParser((value: string) => {
          parseHostPort(value, '--metrics-bind-address');
          return value;
        }),
    )
    .addOption(
      new Option('--nodeport-addresses <cidrs>', 'comma-separated CIDRs (or IPs, or "primary") selecting the node IPs node ports are served on (default: the node IP)')
        .default([] as string[], 'the node IP')
        .argParser((value: string) => value.split(',').map((s) => s.trim()).filter((s) => s !== '')),
    )
    .addOption(new Option('--min-sync-period <duration>', 'the least time between two syncs of the proxy rules (default 1s)').argParser(durationFlag))
    .addOption(new Option('--sync-period <duration>', 'the longest time between two syncs of the proxy rules (default 30s)').argParser(durationFlag))
    .addOption(new Option('--iptables-min-sync-period <duration>', 'the same as --min-sync-period (upstream\'s older name)').argParser(durationFlag))
    .addOption(new Option('--iptables-sync-period <duration>', 'the same as --sync-period (upstream\'s older name)').argParser(durationFlag))
    .addOption(new Option('--udp-timeout <duration>', 'how long an idle UDP session lasts (userspace mode)').default(250, '250ms').argParser(durationFlag));
}

export function proxyCommand(): Command {
  const command = new Command('proxy').description('run the kube-proxy: route each Service\'s addresses to its ready endpoints on this node');
  addProxyFlags(command);
  return command.action(async (flags: ProxyFlags) => {
    const code = await runProxy(flags);
    process.exit(code);
  });
}

/** The node's IP: --bind-address when it names one, else the Node's InternalIP (asked a few times), else 127.0.0.1. */
async function resolveNodeIP(flags: ProxyFlags, client: Client, nodeName: string, log: Logger): Promise<string> {
  if (flags.bindAddress !== '0.0.0.0' && flags.bindAddress !== '::') return flags.bindAddress;
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const node = (await client.resource(NODES).get(nodeName)) as { status?: { addresses?: { type: string; address: string }[] } };
      const ip = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      if (ip !== undefined) return ip;
    } catch (e: unknown) {
      log.debug({ err: e }, 'cannot read this node yet');
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  log.warn({ node: nodeName }, 'no InternalIP found for this node; using 127.0.0.1 as the node IP');
  return '127.0.0.1';
}

/** The Proxier of a mode. Modes other than userspace are wired in here as they are built. */
export function newProxier(flags: ProxyFlags, nodeIP: string): Proxier {
  switch (flags.proxyMode) {
    case 'userspace':
      return newUserspaceProxier({ nodePortAddresses: nodePortAddresses(flags.nodeportAddresses, [nodeIP]), udpIdleTimeoutMs: flags.udpTimeout });
    default:
      throw new Error(`--proxy-mode ${flags.proxyMode} is not available in this build yet: use --proxy-mode userspace`);
  }
}

export interface RunProxyOptions {
  /** Stops the proxy as SIGINT/SIGTERM do (tests). */
  readonly signal?: AbortSignal;
}

export async function runProxy(flags: ProxyFlags, options: RunProxyOptions = {}): Promise<number> {
  if (flags.kubeconfig === undefined) {
    out('proxy: --kubeconfig is required: the proxy reaches the API server only through it');
    return 1;
  }
  const log = newLogger('kube-proxy');
  const nodeName = flags.hostnameOverride ?? hostname().toLowerCase();
  const client = newHttpClient(restConfigFromKubeconfig(flags.kubeconfig, { userAgent: 'kube-proxy/k8ts' }));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const stopping = new AbortController();
  const onSignal = (): void => stopping.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  options.signal?.addEventListener('abort', onSignal, { once: true });
  const cleanup = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    client.close();
  };

  let proxier: Proxier;
  let nodeIP: string;
  let server: Awaited<ReturnType<typeof serveHealthAndMetrics>>;
  try {
    nodeIP = await resolveNodeIP(flags, client, nodeName, log);
    proxier = newProxier(flags, nodeIP);
    const metrics = parseHostPort(flags.metricsBindAddress, '--metrics-bind-address');
    server = await serveHealthAndMetrics(metrics.host, metrics.port, registry).catch((e: unknown) => {
      throw new Error(`cannot serve metrics on ${flags.metricsBindAddress}: ${message(e)}`, { cause: e });
    });
  } catch (e: unknown) {
    out(`proxy: ${message(e)}`);
    cleanup();
    return 1;
  }
  const metricsPort = (server.address() as AddressInfo).port;
  out(`proxy: mode ${proxier.mode}, node ${nodeName} (${nodeIP}); /metrics and /healthz on http://${parseHostPort(flags.metricsBindAddress, '').host}:${metricsPort}`);

  const runner = newProxyRunner({
    client,
    proxier,
    nodeName,
    logger: log,
    registry,
    minSyncPeriodMs: flags.minSyncPeriod ?? flags.iptablesMinSyncPeriod ?? DEFAULT_MIN_SYNC_PERIOD_MS,
    syncPeriodMs: flags.syncPeriod ?? flags.iptablesSyncPeriod ?? DEFAULT_SYNC_PERIOD_MS,
  });
  const started = runner.start(stopping.signal).then(
    () => out('proxy: caches synced; programming Services'),
    (e: unknown) => {
      if (!stopping.signal.aborted) out(`proxy: ${message(e)}`);
    },
  );
  await new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
  await started;
  await runner.stop();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  cleanup();
  out('proxy: stopped');
  return 0;
}
