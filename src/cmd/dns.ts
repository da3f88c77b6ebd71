/**
 * `k8ts dns`: the cluster DNS (the role CoreDNS plays upstream): answers the
 * cluster domain over UDP and TCP on --bind-address:--port from Services and
 * EndpointSlices it watches through the API server with the identity of
 * --kubeconfig (system:coredns under `k8ts server`), refuses other names
 * unless --upstream resolvers are given, and serves /healthz, /readyz (ready
 * once its informers have synced) and /metrics (coredns_dns_*) on
 * --metrics-bind-address. Port 53 needs root: `k8ts server` picks a free port.
 */
import { Command, Option } from 'commander';
import { newHttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import { startClusterDns } from '../dns/cluster-dns.js';
import { parseUpstream } from '../dns/forwarder.js';
import { DEFAULT_CLUSTER_DOMAIN, DEFAULT_TTL_SECONDS } from '../dns/records.js';
import { newLogger } from '../machinery/logger.js';
import { parsePort } from './port-flag.js';

export interface DnsFlags {
  kubeconfig?: string;
  bindAddress: string;
  port: number;
  clusterDomain: string;
  metricsBindAddress: string;
  upstream: string[];
  ttl: number;
}

/** CoreDNS's prometheus plugin port. */
export const DEFAULT_DNS_METRICS_ADDRESS = '127.0.0.1:9153';

/** `HOST:PORT` (or `[v6]:PORT`) → host and port. */
export function parseHostPort(value: string): { host: string; port: number } {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(value) ?? /^([^:]+):(\d+)$/.exec(value);
  if (match === null) throw new Error(`invalid address "${value}": want HOST:PORT`);
  return { host: match[1]!, port: parsePort(match[2]!) };
}

export function addDnsFlags(command: Command): Command {
  return command
    .addOption(new Option('--kubeconfig <path>', 'kubeconfig of the identity the DNS server watches Services and EndpointSlices with'))
    .addOption(new Option('--bind-address <ip>', 'address the DNS server listens on (UDP and TCP)').default('127.0.0.1'))
    .addOption(new Option('--port <port>', 'DNS port (53 needs root; 0: pick a free one)').default(53).argParser(parsePort))
    .addOption(new Option('--cluster-domain <domain>', 'the cluster domain answered').default(DEFAULT_CLUSTER_DOMAIN))
    .addOption(
      new Option('--metrics-bind-address <host:port>', '/healthz, /readyz and /metrics (port 0: pick a free one)').default(DEFAULT_DNS_METRICS_ADDRESS).argParser((value: string) => {
        parseHostPort(value);
        return value;
      }),
    )
    .addOption(
      new Option('--upstream <host[:port]>', 'resolver for names outside the cluster domain (repeatable; none: they are REFUSED)')
        .default([] as string[], 'none')
        .argParser((value: string, previous: string[]) => {
          parseUpstream(value);
          return [...previous, value];
        }),
    )
    .addOption(
      new Option('--ttl <seconds>', 'TTL of the answers').default(DEFAULT_TTL_SECONDS).argParser((value: string) => {
        const ttl = Number(value);
        if (!/^\d+$/.test(value) || ttl > 3600) throw new Error(`invalid --ttl "${value}": seconds from 0 to 3600`);
        return ttl;
      }),
    );
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);

export function dnsCommand(): Command {
  const command = new Command('dns').description('run the cluster DNS: answer SERVICE.NAMESPACE.svc.<cluster domain> from Services and EndpointSlices');
  addDnsFlags(command);
  return command.action(async (flags: DnsFlags) => {
    process.exit(await runDns(flags));
  });
}

export async function runDns(flags: DnsFlags, signal?: AbortSignal): Promise<number> {
  if (flags.kubeconfig === undefined) {
    process.stderr.write('error: --kubeconfig is required: the DNS server reads Services and EndpointSlices only through the API server\n');
    return 1;
  }
  const log = newLogger('dns');
  const metrics = parseHostPort(flags.metricsBindAddress);
  let client;
  try {
    client = newHttpClient(restConfigFromKubeconfig(flags.kubeconfig, { userAgent: 'coredns/k8ts' }));
  } catch (e: unknown) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  let dns;
  try {
    dns = await startClusterDns({
      client,
      host: flags.bindAddress,
      port: flags.port,
      domain: flags.clusterDomain,
      ttl: flags.ttl,
      upstreams: flags.upstream.map(parseUpstream),
      healthHost: metrics.host,
      healthPort: metrics.port,
      onError: (message, error) => log.warn({ err: error }, message),
    });
  } catch (e: unknown) {
    client.close();
    process.stderr.write(`error: cannot serve DNS on ${flags.bindAddress}:${flags.port} or HTTP on ${flags.metricsBindAddress}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  out(`dns: serving ${flags.clusterDomain} on ${dns.dns.host}:${dns.dns.port} (udp and tcp)${flags.upstream.length > 0 ? `, forwarding other names to ${flags.upstream.join(', ')}` : ', refusing other names'}`);
  out(`dns: /healthz, /readyz and /metrics on http://${dns.health.host}:${dns.health.port}`);
  void dns.synced.then(() => out('dns: informers synced; ready'), () => undefined);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await dns.stop();
  client.close();
  out('dns: stopped');
  return 0;
}
