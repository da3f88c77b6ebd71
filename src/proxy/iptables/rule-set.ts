/**
 * The iptables rule set of the kube-proxy, generated from a ProxyState: a pure
 * function, following upstream's chain layout (pkg/proxy/iptables/proxier.go,
 * syncProxyRules):
 *
 *   nat    PREROUTING, OUTPUT ─▶ KUBE-SERVICES ─▶ (cluster IP) KUBE-SVC-… or KUBE-SVL-…
 *                                               ─▶ (external IP, LB IP) KUBE-EXT-…
 *                                               ─▶ (last rule, local destination) KUBE-NODEPORTS ─▶ KUBE-EXT-…
 *          KUBE-EXT-…  ─▶ KUBE-MARK-MASQ, then KUBE-SVC-… (Cluster) or KUBE-SVL-… (Local)
 *          KUBE-SVC-…  ─▶ one KUBE-SEP-… per endpoint, chosen at random with
 *                         `-m statistic --probability` 1/n, 1/(n-1), …, 1 (and
 *                         `-m recent` first, for sessionAffinity ClientIP)
 *          KUBE-SEP-…  ─▶ DNAT to ip:port (marking hairpin traffic for masquerade)
 *          POSTROUTING ─▶ KUBE-POSTROUTING: MASQUERADE what KUBE-MARK-MASQ marked
 *   filter KUBE-SERVICES / KUBE-EXTERNAL-SERVICES: REJECT (no endpoints) or
 *          DROP (no local endpoints under a Local policy); KUBE-NODEPORTS:
 *          health-check node ports; KUBE-FORWARD: accept marked and
 *          established forwarded traffic, drop conntrack-INVALID packets.
 *
 * The result is kept per chain (each chain's rules in order), so that the
 * applier can write only the chains that changed since the last sync.
 */
import { categorizeEndpoints, externallyAccessible } from '../categorize-endpoints.js';
import type { Endpoint, ProxyState, ServicePort } from '../interface.js';
import { endpointChainName, endpointString, serviceChainNames, servicePortNameString } from './chain-names.js';

export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';

/** Chains written on every full sync, in this order, per table. */
export const FILTER_TOP_CHAINS = [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL] as const;
export const NAT_TOP_CHAINS = [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ] as const;

/** Above this many endpoints, per-endpoint comments are left out (upstream's largeClusterEndpointsThreshold). */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

export interface RuleSetOptions {
  /**
   * The cluster's pod CIDR (--cluster-cidr), upstream's local-traffic detector:
   * traffic to a cluster IP from outside it is masqueraded, and pod traffic to
   * a Local-policy Service's external address short-circuits to all endpoints.
   */
  readonly clusterCIDR?: string;
  /** Masquerade all traffic to cluster IPs (--masquerade-all). */
  readonly masqueradeAll?: boolean;
  /** The fwmark bit that asks for masquerade (--iptables-masquerade-bit, default 14: 0x4000). */
  readonly masqueradeBit?: number;
  /**
   * Node IPs that accept node-port traffic (--nodeport-addresses as IPs). Absent:
   * every local address except 127.0.0.0/8 (localhost node ports need
   * route_localnet, which this proxier does not set).
   */
  readonly nodePortAddresses?: readonly string[];
}

/** One table's chains, each with its rules (`-A CHAIN …` lines) in order; Map order is output order. */
export type TableRules = ReadonlyMap<string, readonly string[]>;

export interface RuleSet {
  readonly filter: TableRules;
  readonly nat: TableRules;
  /** Service ports programmed (with an IPv4 cluster IP). */
  readonly servicePorts: number;
  /** Endpoint (KUBE-SEP) chains programmed. */
  readonly endpoints: number;
  /** Service ports left out, and why. */
  readonly problems: readonly string[];
}

const isIPv4 = (ip: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(ip);

/** `"text"`: comments with spaces are quoted in iptables-restore input. */
const quoted = (text: string): string => `"${text}"`;

const probabilities: string[] = [];
/** 1/n with ten decimals, as upstream's computeProbability ("%0.10f"). */
function probability(n: number): string {
  let p = probabilities[n];
  if (p === undefined) {
    p = (1 / n).toFixed(10);
    probabilities[n] = p;
  }
  return p;
}

class TableBuilder {
  readonly chains = new Map<string, string[]>();
  declare(chain: string): string[] {
    let rules = this.chains.get(chain);
    if (rules === undefined) {
      rules = [];
      this.chains.set(chain, rules);
    }
    return rules;
  }
  add(chain: string, rule: string): void {
    this.declare(chain).push(`-A ${chain} ${rule}`);
  }
}

function byEndpoint(a: Endpoint, b: Endpoint): number {
  return a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1;
}

interface EndpointChain {
  readonly endpoint: string;
  readonly chain: string;
}

export function generateRuleSet(state: ProxyState, options: RuleSetOptions = {}): RuleSet {
  const mark = `0x${(1 << (options.masqueradeBit ?? 14)).toString(16).padStart(4, '0')}`;
  const filter = new TableBuilder();
  const nat = new TableBuilder();
  for (const chain of FILTER_TOP_CHAINS) filter.declare(chain);
  for (const chain of NAT_TOP_CHAINS) nat.declare(chain);

  nat.add(KUBE_POSTROUTING, `-m mark ! --mark ${mark}/${mark} -j RETURN`);
  // Clear the mark so that a packet that traverses the stack again is not masqueraded twice.
  nat.add(KUBE_POSTROUTING, `-j MARK --xor-mark ${mark}`);
  nat.add(KUBE_POSTROUTING, `-m comment --comment ${quoted('kubernetes service traffic requiring SNAT')} -j MASQUERADE --random-fully`);
  nat.add(KUBE_MARK_MASQ, `-j MARK --or-mark ${mark}`);

  const keys = [...state.services.keys()].sort();
  let totalEndpoints = 0;
  for (const key of keys) totalEndpoints += state.endpoints.get(key)?.length ?? 0;
  const largeCluster = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  const problems: string[] = [];
  let servicePorts = 0;
  let endpointChains = 0;

  for (const key of keys) {
    const svc = state.services.get(key) as ServicePort;
    const clusterIP = svc.clusterIPs.find(isIPv4);
    if (clusterIP === undefined) {
      problems.push(`${key}: no IPv4 cluster IP (${svc.clusterIPs.join(',') || 'none'}); the iptables proxier programs IPv4 only`);
      continue;
    }
    servicePorts++;
    const all = (state.endpoints.get(key) ?? []).filter((e) => isIPv4(e.ip));
    endpointChains += writeServicePort(svc, clusterIP, all, { filter, nat, options, largeCluster });
  }

  // Node ports last: KUBE-SERVICES must first have matched every service IP.
  const nodePortsComment = `-m comment --comment ${quoted('kubernetes service nodeports; NOTE: this must be the last rule in this chain')}`;
  if (options.nodePortAddresses === undefined) {
    nat.add(KUBE_SERVICES, `${nodePortsComment} -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j ${KUBE_NODEPORTS}`);
  } else {
    for (const address of options.nodePortAddresses) {
      if (!isIPv4(address) || address.startsWith('127.')) {
        problems.push(`node port address ${address} left out: only non-loopback IPv4 addresses take node ports`);
        continue;
      }
      nat.add(KUBE_SERVICES, `${nodePortsComment} -d ${address} -j ${KUBE_NODEPORTS}`);
    }
  }

  filter.add(KUBE_FORWARD, '-m conntrack --ctstate INVALID -j DROP');
  filter.add(KUBE_FORWARD, `-m comment --comment ${quoted('kubernetes forwarding rules')} -m mark --mark ${mark}/${mark} -j ACCEPT`);
  filter.add(KUBE_FORWARD, `-m comment --comment ${quoted('kubernetes forwarding conntrack rule')} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`);

  return { filter: filter.chains, nat: nat.chains, servicePorts, endpoints: endpointChains, problems };
}

interface WriteContext {
  readonly filter: TableBuilder;
  readonly nat: TableBuilder;
  readonly options: RuleSetOptions;
  readonly largeCluster: boolean;
}

/** Writes one Service port's rules; returns the number of endpoint chains. */
function writeServicePort(svc: ServicePort, clusterIP: string, all: readonly Endpoint[], ctx: WriteContext): number {
  const { filter, nat, options } = ctx;
  const name = servicePortNameString(svc.name);
  const protocol = svc.name.protocol.toLowerCase();
  const chains = serviceChainNames(svc.name);
  const external = externallyAccessible(svc);
  const internalLocal = svc.internalTrafficPolicyLocal;
  const externalLocal = external && svc.externalTrafficPolicyLocal;
  // As upstream's UsesClusterEndpoints: any externally reachable Service needs
  // its cluster endpoints, to short-circuit traffic from this node and its pods.
  const usesCluster = !internalLocal || external;
  const usesLocal = internalLocal || externalLocal;

  const categorized = categorizeEndpoints(svc, all);
  const cluster = usesCluster && categorized.cluster.length === 0 && internalLocal
    ? categorizeEndpoints({ ...svc, internalTrafficPolicyLocal: false }, all).cluster
    : categorized.cluster;
  const local = categorized.local;
  const hasEndpoints = all.some((e) => e.ready || (e.serving && e.terminating));

  const usesClusterChain = usesCluster && cluster.length > 0;
  const usesLocalChain = usesLocal && local.length > 0;
  const internalChain = internalLocal ? chains.local : chains.cluster;
  const hasInternalEndpoints = hasEndpoints && (!internalLocal || local.length > 0);
  const externalPolicyChain = externalLocal ? chains.local : chains.cluster;
  const hasExternalEndpoints = hasEndpoints && (!externalLocal || local.length > 0);

  const noEndpoints = quoted(`${name} has no endpoints`);
  const noLocalEndpoints = quoted(`${name} has no local endpoints`);
  const internalFilter = hasEndpoints ? { target: 'DROP', comment: noLocalEndpoints } : { target: 'REJECT', comment: noEndpoints };
  const externalFilter = internalFilter;
  const match = `-m ${protocol} -p ${protocol}`;
  const clusterIPMatch = `-m comment --comment ${quoted(`${name} cluster IP`)} ${match} -d ${clusterIP} --dport ${svc.port}`;

  // The cluster IP.
  if (hasInternalEndpoints) {
    nat.add(KUBE_SERVICES, `${clusterIPMatch} -j ${internalChain}`);
  } else {
    filter.add(KUBE_SERVICES, `-m comment --comment ${internalFilter.comment} ${match} -d ${clusterIP} --dport ${svc.port} -j ${internalFilter.target}`);
  }

  // External IPs and load-balancer IPs.
  const externalAddresses: Array<[string, string]> = [
    ...svc.externalIPs.filter(isIPv4).map((ip): [string, string] => [ip, 'external IP']),
    ...svc.loadBalancerIPs.filter(isIPv4).map((ip): [string, string] => [ip, 'loadbalancer IP']),
  ];
  for (const [ip, what] of externalAddresses) {
    if (hasEndpoints) {
      nat.add(KUBE_SERVICES, `-m comment --comment ${quoted(`${name} ${what}`)} ${match} -d ${ip} --dport ${svc.port} -j ${chains.external}`);
    }
    if (!hasExternalEndpoints) {
      filter.add(KUBE_EXTERNAL_SERVICES, `-m comment --comment ${externalFilter.comment} ${match} -d ${ip} --dport ${svc.port} -j ${externalFilter.target}`);
    }
  }

  // The node port.
  if (svc.nodePort !== undefined) {
    if (hasEndpoints) {
      nat.add(KUBE_NODEPORTS, `-m comment --comment ${name} ${match} --dport ${svc.nodePort} -j ${chains.external}`);
    }
    if (!hasExternalEndpoints) {
      filter.add(
        KUBE_EXTERNAL_SERVICES,
        `-m comment --comment ${externalFilter.comment} -m addrtype --dst-type LOCAL ${match} --dport ${svc.nodePort} -j ${externalFilter.target}`,
      );
    }
  }
  if (svc.healthCheckNodePort !== undefined) {
    filter.add(KUBE_NODEPORTS, `-m comment --comment ${quoted(`${name} health check node port`)} -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`);
  }

  // Masquerade cluster-IP traffic that did not come from a pod (it may leave the node).
  if (hasInternalEndpoints) {
    if (options.masqueradeAll === true) {
      nat.add(internalChain, `${clusterIPMatch} -j ${KUBE_MARK_MASQ}`);
    } else if (options.clusterCIDR !== undefined) {
      nat.add(internalChain, `${clusterIPMatch} ! -s ${options.clusterCIDR} -j ${KUBE_MARK_MASQ}`);
    }
  }

  // The external-traffic chain.
  if (hasEndpoints && external) {
    nat.declare(chains.external);
    if (!externalLocal) {
      nat.add(chains.external, `-m comment --comment ${quoted(`masquerade traffic for ${name} external destinations`)} -j ${KUBE_MARK_MASQ}`);
    } else {
      // Local policy keeps the client's address, except for traffic from this
      // node and its pods, which goes to every endpoint as if it had come back
      // in through a load balancer.
      if (options.clusterCIDR !== undefined) {
        nat.add(chains.external, `-m comment --comment ${quoted(`pod traffic for ${name} external destinations`)} -s ${options.clusterCIDR} -j ${chains.cluster}`);
      }
      nat.add(chains.external, `-m comment --comment ${quoted(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`);
      nat.add(chains.external, `-m comment --comment ${quoted(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${chains.cluster}`);
    }
    if (hasExternalEndpoints) nat.add(chains.external, `-j ${externalPolicyChain}`);
  }

  const sessionAffinity = svc.sessionAffinityTimeoutSeconds;
  const targets = new Map<Endpoint, EndpointChain>();
  const chainOf = (e: Endpoint): EndpointChain => {
    let t = targets.get(e);
    if (t === undefined) {
      const endpoint = endpointString(e.ip, e.port);
      t = { endpoint, chain: endpointChainName(svc.name, endpoint) };
      targets.set(e, t);
    }
    return t;
  };
  const writeDispatch = (chain: string, endpoints: readonly Endpoint[]): void => {
    const sorted = [...endpoints].sort(byEndpoint).map(chainOf);
    nat.declare(chain);
    const comment = (t: EndpointChain): string => (ctx.largeCluster ? '' : `-m comment --comment ${quoted(`${name} -> ${t.endpoint}`)} `);
    if (sessionAffinity !== undefined) {
      for (const t of sorted) {
        nat.add(chain, `${comment(t)}-m recent --name ${t.chain} --rcheck --seconds ${sessionAffinity} --reap -j ${t.chain}`);
      }
    }
    sorted.forEach((t, i) => {
      const random = i < sorted.length - 1 ? `-m statistic --mode random --probability ${probability(sorted.length - i)} ` : '';
      nat.add(chain, `${comment(t)}${random}-j ${t.chain}`);
    });
  };
  if (usesClusterChain) writeDispatch(chains.cluster, cluster);
  if (usesLocalChain) writeDispatch(chains.local, local);

  // One chain per reachable endpoint.
  const reachable = usesLocalChain ? [...new Set([...(usesClusterChain ? cluster : []), ...local])].sort(byEndpoint) : [...cluster].sort(byEndpoint);
  const sepComment = ctx.largeCluster ? '' : `-m comment --comment ${name} `;
  for (const e of reachable) {
    const t = chainOf(e);
    nat.declare(t.chain);
    // Traffic from the endpoint to its own Service may come back to it: masquerade it.
    nat.add(t.chain, `${sepComment}-s ${e.ip} -j ${KUBE_MARK_MASQ}`);
    const recent = sessionAffinity !== undefined ? `-m recent --name ${t.chain} --set ` : '';
    nat.add(t.chain, `${sepComment}${recent}${match} -j DNAT --to-destination ${t.endpoint}`);
  }
  return reachable.length;
}
