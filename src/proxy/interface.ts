/**
 * The kube-proxy's contract (issue 9). The proxy watches Services and
 * EndpointSlices through the API server, folds them into a {@link ProxyState}
 * (one entry per Service port, with the endpoints of that port), and hands the
 * whole state to a {@link Proxier}, which makes the node match it:
 *
 *   informers ─▶ state builder ─▶ (rate-limited, minSyncPeriod) ─▶ Proxier.sync(state)
 *
 * A Proxier is one mode (userspace forwarder, iptables, nftables, ipvs). It is
 * given the complete desired state every time and decides itself how much to
 * change (a userspace proxier opens and closes listeners; a netfilter one
 * rewrites its rule set atomically). After a sync resolves, every EndpointSlice
 * revision in `state.sliceVersions` is in effect on the node: the runner logs
 * and counts each applied slice so that tests can order "slice applied" before
 * "no new connection reaches the pod".
 */

export type ProxyMode = 'userspace' | 'iptables' | 'nftables' | 'ipvs';
export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** Upstream's ServicePortName: which port of which Service. */
export interface ServicePortName {
  readonly namespace: string;
  readonly name: string;
  /** The port's name in the Service ('' for a single unnamed port). */
  readonly port: string;
  readonly protocol: Protocol;
}

/** `namespace/name:port/protocol`: the key of a Service port in every map here. */
export const servicePortKey = (p: ServicePortName): string => `${p.namespace}/${p.name}:${p.port}/${p.protocol}`;

/** One port of one Service, as the proxy programs it. Headless and ExternalName Services have none. */
export interface ServicePort {
  readonly key: string;
  readonly name: ServicePortName;
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  /** spec.clusterIPs (one per IP family). */
  readonly clusterIPs: readonly string[];
  readonly port: number;
  /** spec.ports[].nodePort, for NodePort and LoadBalancer Services. */
  readonly nodePort?: number;
  readonly externalIPs: readonly string[];
  readonly loadBalancerIPs: readonly string[];
  /** Set when spec.sessionAffinity is ClientIP (default 10800 s, as upstream). */
  readonly sessionAffinityTimeoutSeconds?: number;
  /** spec.internalTrafficPolicy Local: traffic to the cluster IP goes only to endpoints on this node. */
  readonly internalTrafficPolicyLocal: boolean;
  /** spec.externalTrafficPolicy Local: node port / external traffic goes only to endpoints on this node. */
  readonly externalTrafficPolicyLocal: boolean;
  readonly healthCheckNodePort?: number;
}

/** One endpoint of a Service port: an address from an EndpointSlice with the port's number resolved. */
export interface Endpoint {
  readonly ip: string;
  readonly port: number;
  /** conditions.ready (absent counts as true, as upstream). */
  readonly ready: boolean;
  /** conditions.serving (absent: same as ready). */
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly nodeName?: string;
  readonly zone?: string;
  /** On the proxy's own node (nodeName equals the proxy's --hostname-override / node name). */
  readonly isLocal: boolean;
}

export interface ProxyState {
  /** Every Service port to program, by {@link servicePortKey}. */
  readonly services: ReadonlyMap<string, ServicePort>;
  /** The endpoints of each Service port (all of them, ready or not: see categorizeEndpoints), by the same key. */
  readonly endpoints: ReadonlyMap<string, readonly Endpoint[]>;
  /** `namespace/name` → resourceVersion of every EndpointSlice folded into this state. */
  readonly sliceVersions: ReadonlyMap<string, string>;
}

export interface SyncResult {
  /** Service ports programmed. */
  readonly servicePorts: number;
  /** Endpoints programmed (over all ports). */
  readonly endpoints: number;
  /** Problems with single Services (an address taken, a rule refused): reported, never thrown. */
  readonly problems: readonly string[];
}

export interface Proxier {
  readonly mode: ProxyMode;
  /**
   * Make the node match `state` (complete, not a delta). Resolves once applied.
   * Rejects only when nothing could be applied (e.g. iptables-restore missing);
   * the runner retries with back-off.
   */
  sync(state: ProxyState): Promise<SyncResult>;
  /** Remove everything this proxier programmed (listeners closed, rules deleted). */
  close(): Promise<void>;
}
