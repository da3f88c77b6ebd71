/**
 * The userspace Proxier (--proxy-mode userspace): TCP and UDP forwarders inside
 * the proxy process, one per address of each Service port — every cluster IP
 * at the Service port (traffic under internalTrafficPolicy), and every node
 * port address and external IP (traffic under externalTrafficPolicy) — each
 * forwarding to the endpoints categorizeEndpoints gives that policy. It needs
 * no root, and is the mode of the process runtime, where cluster IPs are in
 * 127.0.0.0/8 (DESIGN §5).
 *
 * A sync swaps every Service port's endpoints in place, opens the listeners
 * that are new and closes those no longer wanted: once sync resolves, no new
 * connection goes to an endpoint the state does not offer. An address that
 * cannot be bound (taken by another proxy on this machine, not local) is
 * reported in SyncResult.problems and retried at the next sync.
 */
import { categorizeEndpoints } from '../categorize-endpoints.js';
import type { Endpoint, Proxier, ProxyState, ServicePort, SyncResult } from '../interface.js';
import { EndpointPicker } from './endpoint-picker.js';
import { TcpForwarder } from './tcp-forwarder.js';
import { UdpForwarder } from './udp-forwarder.js';

export interface UserspaceProxierOptions {
  /** The addresses node ports are bound on (--nodeport-addresses; under k8ts the node IP). */
  readonly nodePortAddresses: readonly string[];
  /** Per-endpoint connect timeout before the next endpoint is tried (default 1 s). */
  readonly connectTimeoutMs?: number;
  /** Idle time after which a UDP session ends (upstream's --udp-timeout, default 250 ms). */
  readonly udpIdleTimeoutMs?: number;
}

type Traffic = 'internal' | 'external';
type Forwarder = TcpForwarder | UdpForwarder;

interface WantedListener {
  readonly protocol: 'TCP' | 'UDP';
  readonly ip: string;
  readonly port: number;
  readonly route: string;
  readonly service: ServicePort;
}

const listenerKey = (l: Pick<WantedListener, 'protocol' | 'ip' | 'port'>): string => `${l.protocol}/${l.ip}:${l.port}`;
const describePort = (s: ServicePort): string => `Service ${s.name.namespace}/${s.name.name} port ${s.name.port === '' ? s.port : `"${s.name.port}"`}`;
const errorCode = (e: unknown): string => (e instanceof Error && 'code' in e ? String((e as { code: unknown }).code) : '');

function listenProblem(l: WantedListener, error: unknown): string {
  const where = `${l.ip}:${l.port}/${l.protocol}`;
  const code = errorCode(error);
  if (code === 'EADDRINUSE') {
    return `${describePort(l.service)}: cannot listen on ${where}: the address is already in use (another proxy on this machine? a second node on one machine runs with --disable-proxy)`;
  }
  if (code === 'EADDRNOTAVAIL') return `${describePort(l.service)}: cannot listen on ${where}: the address is not on this machine`;
  return `${describePort(l.service)}: cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
}

export interface UserspaceProxier extends Proxier {
  /** The addresses listened on now (`TCP/ip:port`, sorted), for tests and logs. */
  readonly listening: readonly string[];
}

export function newUserspaceProxier(options: UserspaceProxierOptions): UserspaceProxier {
  return new ForwardingProxier(options);
}

class ForwardingProxier implements UserspaceProxier {
  readonly mode = 'userspace' as const;
  private readonly pickers = new Map<string, EndpointPicker>();
  private readonly listeners = new Map<string, Forwarder>();

  constructor(private readonly options: UserspaceProxierOptions) {}

  async sync(state: ProxyState): Promise<SyncResult> {
    const problems: string[] = [];
    const wanted = new Map<string, WantedListener>();
    const usedRoutes = new Set<string>();
    let endpointCount = 0;

    for (const service of state.services.values()) {
      if (service.name.protocol === 'SCTP') {
        problems.push(`${describePort(service)}: SCTP is not supported by the userspace proxy`);
        continue;
      }
      const protocol = service.name.protocol;
      const categorized = categorizeEndpoints(service, state.endpoints.get(service.key) ?? []);
      endpointCount += categorized.allReachable.length;
      const routeOf = (traffic: Traffic, endpoints: readonly Endpoint[]): string => {
        const route = `${service.key}|${traffic}`;
        let picker = this.pickers.get(route);
        if (picker === undefined) this.pickers.set(route, (picker = new EndpointPicker()));
        picker.update(endpoints, service.sessionAffinityTimeoutSeconds);
        usedRoutes.add(route);
        return route;
      };
      const want = (ip: string, port: number, route: string): void => {
        const listener: WantedListener = { protocol, ip, port, route, service };
        const key = listenerKey(listener);
        const other = wanted.get(key);
        if (other !== undefined) {
          problems.push(`${describePort(service)}: ${ip}:${port}/${protocol} is also wanted by ${describePort(other.service)}; only the first is served`);
          return;
        }
        wanted.set(key, listener);
      };
      const internal = routeOf('internal', service.internalTrafficPolicyLocal ? categorized.local : categorized.cluster);
      for (const ip of service.clusterIPs) want(ip, service.port, internal);
      const externalAddresses = [...(service.nodePort !== undefined ? this.options.nodePortAddresses.map((ip) => [ip, service.nodePort!] as const) : []), ...service.externalIPs.map((ip) => [ip, service.port] as const)];
      if (externalAddresses.length > 0) {
        const external = routeOf('external', service.externalTrafficPolicyLocal ? categorized.local : categorized.cluster);
        for (const [ip, port] of externalAddresses) want(ip, port, external);
      }
    }

    for (const [key, forwarder] of this.listeners) {
      const w = wanted.get(key);
      if (w === undefined) {
        forwarder.close();
        this.listeners.delete(key);
      } else {
        forwarder.picker = this.pickers.get(w.route)!;
      }
    }
    const opening = [...wanted].filter(([key]) => !this.listeners.has(key));
    const opened = await Promise.allSettled(opening.map(([, w]) => this.open(w)));
    opened.forEach((outcome, i) => {
      const [key, w] = opening[i]!;
      if (outcome.status === 'fulfilled') this.listeners.set(key, outcome.value);
      else problems.push(listenProblem(w, outcome.reason));
    });
    for (const route of this.pickers.keys()) if (!usedRoutes.has(route)) this.pickers.delete(route);
    return { servicePorts: state.services.size, endpoints: endpointCount, problems };
  }

  private open(w: WantedListener): Promise<Forwarder> {
    const picker = this.pickers.get(w.route)!;
    if (w.protocol === 'UDP') {
      return UdpForwarder.listen({ ip: w.ip, port: w.port, picker, ...(this.options.udpIdleTimeoutMs !== undefined ? { idleTimeoutMs: this.options.udpIdleTimeoutMs } : {}) });
    }
    return TcpForwarder.listen({ ip: w.ip, port: w.port, picker, ...(this.options.connectTimeoutMs !== undefined ? { connectTimeoutMs: this.options.connectTimeoutMs } : {}) });
  }

  get listening(): string[] {
    return [...this.listeners.keys()].sort();
  }

  async close(): Promise<void> {
    for (const forwarder of this.listeners.values()) forwarder.closeAll();
    this.listeners.clear();
    this.pickers.clear();
  }
}
