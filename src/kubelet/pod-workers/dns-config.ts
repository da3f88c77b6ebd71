/**
 * A pod's DNS settings, as upstream's kubelet forms them
 * (pkg/kubelet/network/dns): from spec.dnsPolicy, the kubelet's
 * --cluster-dns / --cluster-domain, the host's resolv.conf and spec.dnsConfig.
 *
 * - ClusterFirst (the default; for a host-network pod it means Default),
 *   ClusterFirstWithHostNet: nameservers = --cluster-dns, searches
 *   NS.svc.DOMAIN svc.DOMAIN DOMAIN then the host's, options ndots:5.
 *   Without --cluster-dns: Default, with a Warning event MissingClusterDNS.
 * - Default: the host's resolv.conf.
 * - None: nothing but spec.dnsConfig.
 * Then spec.dnsConfig is appended (nameservers and searches without
 * duplicates; options merged by name, the pod's value winning), and the
 * result cut to upstream's limits (3 nameservers, 32 search domains of at
 * most 2048 characters together) with a Warning event DNSConfigForming.
 * Pure: the host's resolv.conf is passed as text.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PodDNSConfig } from 'kubernetes-types/core/v1.js';
import type { DnsConfig } from '../runtime/interface.js';
import type { Pod } from '../types.js';

/** Upstream's validation limits (pkg/apis/core/validation). */
export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;
/** Upstream's default options for cluster DNS. */
export const DEFAULT_DNS_OPTIONS = ['ndots:5'];
/** Upstream's default --resolv-conf. */
export const DEFAULT_RESOLV_CONF = '/etc/resolv.conf';

/** Event reasons, byte for byte upstream's (pkg/kubelet/events). */
export const DNS_EVENT = { missingClusterDNS: 'MissingClusterDNS', dnsConfigForming: 'DNSConfigForming' } as const;

export interface PodDnsOptions {
  /** --cluster-dns: the cluster DNS server addresses. */
  readonly clusterDNS: readonly string[];
  /** --cluster-domain ('' : no cluster search domains). */
  readonly clusterDomain: string;
  /** The text of the host's resolv.conf ('' when unreadable). */
  readonly hostResolvConf: string;
}

export interface DnsWarning {
  readonly reason: string;
  readonly message: string;
}

export interface PodDnsResult {
  readonly config: DnsConfig;
  readonly warnings: readonly DnsWarning[];
}

/** nameserver, search and options lines of a resolv.conf (`#` and `;` comments; the last search line wins, as the resolver does). */
export function parseResolvConf(text: string): DnsConfig {
  const servers: string[] = [];
  let searches: string[] = [];
  const options: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const [keyword, ...fields] = line.split(/\s+/);
    if (keyword === 'nameserver' && fields[0] !== undefined) servers.push(fields[0]);
    else if (keyword === 'search' || keyword === 'domain') searches = fields.map((f) => f.replace(/\.$/, '')).filter((f) => f !== '');
    else if (keyword === 'options') options.push(...fields);
  }
  return { servers, searches, options };
}

/** The content of a pod's resolv.conf. */
export function formatResolvConf(config: DnsConfig): string {
  const lines = [
    ...(config.searches.length > 0 ? [`search ${config.searches.join(' ')}`] : []),
    ...config.servers.map((s) => `nameserver ${s}`),
    ...(config.options.length > 0 ? [`options ${config.options.join(' ')}`] : []),
  ];
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

type DnsType = 'cluster' | 'host' | 'none';

function dnsType(pod: Pod): DnsType {
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'None') return 'none';
  if (policy === 'ClusterFirstWithHostNet') return 'cluster';
  if (policy === 'ClusterFirst' && pod.spec?.hostNetwork !== true) return 'cluster';
  return 'host'; // Default, and ClusterFirst on the host network
}

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** Options by name (`name` or `name:value`); later values win, the first position stays. */
function mergeOptions(existing: readonly string[], pod: PodDNSConfig['options']): string[] {
  const merged = new Map<string, string | undefined>();
  for (const option of existing) {
    const colon = option.indexOf(':');
    merged.set(colon < 0 ? option : option.slice(0, colon), colon < 0 ? undefined : option.slice(colon + 1));
  }
  for (const option of pod ?? []) {
    if (option.name === undefined || option.name === '') continue;
    merged.set(option.name, option.value);
  }
  return [...merged].map(([name, value]) => (value === undefined ? name : `${name}:${value}`));
}

function fitNameservers(servers: readonly string[], warnings: DnsWarning[]): string[] {
  if (servers.length <= MAX_DNS_NAMESERVERS) return [...servers];
  const kept = servers.slice(0, MAX_DNS_NAMESERVERS);
  warnings.push({ reason: DNS_EVENT.dnsConfigForming, message: `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${kept.join(' ')}` });
  return kept;
}

function fitSearches(searches: readonly string[], warnings: DnsWarning[]): string[] {
  let kept = searches.slice(0, MAX_DNS_SEARCH_PATHS);
  while (kept.length > 0 && kept.join(' ').length > MAX_DNS_SEARCH_LIST_CHARS) kept = kept.slice(0, -1);
  if (kept.length === searches.length) return [...searches];
  warnings.push({ reason: DNS_EVENT.dnsConfigForming, message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${kept.join(' ')}` });
  return kept;
}

export function podDnsConfig(pod: Pod, options: PodDnsOptions): PodDnsResult {
  const warnings: DnsWarning[] = [];
  const host = parseResolvConf(options.hostResolvConf);
  let type = dnsType(pod);
  if (type === 'cluster' && options.clusterDNS.length === 0) {
    // Upstream's pod event: format.Pod (name_namespace(uid)), then the node-level message.
    const podName = `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;
    warnings.push({
      reason: DNS_EVENT.missingClusterDNS,
      message: `pod: "${podName}". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`,
    });
    type = 'host';
  }
  let config: DnsConfig;
  switch (type) {
    case 'none':
      config = { servers: [], searches: [], options: [] };
      break;
    case 'host':
      config = host;
      break;
    case 'cluster': {
      const domain = options.clusterDomain.replace(/\.$/, '');
      const namespace = pod.metadata.namespace ?? 'default';
      const searches = domain === '' ? host.searches : [`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...host.searches];
      config = { servers: [...options.clusterDNS], searches, options: DEFAULT_DNS_OPTIONS };
      break;
    }
  }
  const extra = pod.spec?.dnsConfig;
  if (extra !== undefined) {
    config = {
      servers: unique([...config.servers, ...(extra.nameservers ?? [])]),
      searches: unique([...config.searches, ...(extra.searches ?? [])]),
      options: mergeOptions(config.options, extra.options),
    };
  }
  return { config: { servers: fitNameservers(config.servers, warnings), searches: fitSearches(unique(config.searches), warnings), options: config.options }, warnings };
}

/**
 * Writes the pod's resolv.conf as `<podDir>/resolv.conf` (mode 0644). The cri
 * runtime makes the one its containers see from the sandbox's dns_config; the
 * process runtime cannot give a host process a resolv.conf of its own, so
 * this copy shows what the pod would get (src/kubelet/runtime/process/README.md).
 */
export async function writePodResolvConf(podDir: string, config: DnsConfig): Promise<void> {
  await mkdir(podDir, { recursive: true });
  await writeFile(join(podDir, 'resolv.conf'), formatResolvConf(config), { mode: 0o644 });
}

/** The host's resolv.conf as text; '' when it cannot be read (as upstream: pods then get no host servers). */
export function readHostResolvConf(path: string): string {
  if (path === '') return '';
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
