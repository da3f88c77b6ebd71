/**
 * Everything the scheduler knows about one node (upstream's framework.NodeInfo):
 * the Node, the pods bound or assumed to it, and running sums of what they
 * request and which host ports they hold. The cache keeps one per node and
 * the snapshot of a cycle holds clones; every change bumps `generation`, so
 * the snapshot copies only the nodes that changed since the last cycle.
 */
import { addResource, cloneResource, newResource, resourceFromList, subtractResource, type Resource } from './resource.js';
import { PodInfo, type Node, type Pod } from './types.js';

let lastGeneration = 0;
/** A process-wide, ever-increasing generation number. */
export function nextGeneration(): number {
  return ++lastGeneration;
}

export const DEFAULT_BIND_ALL_HOST_IP = '0.0.0.0';

/** Host ports in use on a node: ip → set of `protocol/port` (upstream's HostPortInfo). */
export class HostPortInfo {
  private readonly byIP = new Map<string, Set<string>>();

  add(ip: string | undefined, protocol: string | undefined, port: number): void {
    const key = `${protocol === undefined || protocol === '' ? 'TCP' : protocol}/${port}`;
    const address = ip === undefined || ip === '' ? DEFAULT_BIND_ALL_HOST_IP : ip;
    let set = this.byIP.get(address);
    if (set === undefined) this.byIP.set(address, (set = new Set()));
    set.add(key);
  }

  remove(ip: string | undefined, protocol: string | undefined, port: number): void {
    const key = `${protocol === undefined || protocol === '' ? 'TCP' : protocol}/${port}`;
    const address = ip === undefined || ip === '' ? DEFAULT_BIND_ALL_HOST_IP : ip;
    const set = this.byIP.get(address);
    if (set === undefined) return;
    set.delete(key);
    if (set.size === 0) this.byIP.delete(address);
  }

  /** Whether ip:protocol/port would conflict: 0.0.0.0 conflicts with the same protocol/port on any ip, and the other way round. */
  conflicts(ip: string | undefined, protocol: string | undefined, port: number): boolean {
    if (port <= 0) return false;
    const key = `${protocol === undefined || protocol === '' ? 'TCP' : protocol}/${port}`;
    const address = ip === undefined || ip === '' ? DEFAULT_BIND_ALL_HOST_IP : ip;
    if (address === DEFAULT_BIND_ALL_HOST_IP) {
      for (const set of this.byIP.values()) if (set.has(key)) return true;
      return false;
    }
    return (this.byIP.get(address)?.has(key) ?? false) || (this.byIP.get(DEFAULT_BIND_ALL_HOST_IP)?.has(key) ?? false);
  }

  get size(): number {
    let n = 0;
    for (const set of this.byIP.values()) n += set.size;
    return n;
  }

  clone(): HostPortInfo {
    const copy = new HostPortInfo();
    for (const [ip, set] of this.byIP) copy.byIP.set(ip, new Set(set));
    return copy;
  }
}

/** An image on a node, and on how many nodes of the cluster it is (filled by the cache's snapshot). */
export interface ImageStateSummary {
  readonly size: number;
  numNodes: number;
}

/** The host ports a pod asks for: its containers' and its sidecars' (restartable init containers') ports with hostPort > 0. */
export function podHostPorts(pod: Pod): Array<{ ip: string | undefined; protocol: string | undefined; port: number }> {
  const ports: Array<{ ip: string | undefined; protocol: string | undefined; port: number }> = [];
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
  for (const c of containers) {
    for (const p of c.ports ?? []) if ((p.hostPort ?? 0) > 0) ports.push({ ip: p.hostIP, protocol: p.protocol, port: p.hostPort ?? 0 });
  }
  return ports;
}

export class NodeInfo {
  node: Node | undefined;
  pods: PodInfo[] = [];
  /** Pods with any (anti-)affinity term. */
  podsWithAffinity: PodInfo[] = [];
  /** Pods with a required anti-affinity term. */
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  /** Sum of the pods' requests. */
  requested: Resource = newResource();
  /** Sum of the pods' non-zero requests (scoring). */
  nonZeroRequested: Resource = newResource();
  allocatable: Resource = newResource();
  /** Images on the node by every name they carry (status.images[].names). */
  imageStates = new Map<string, ImageStateSummary>();
  generation = nextGeneration();

  constructor(...pods: Array<Pod | PodInfo>) {
    for (const p of pods) this.addPod(p);
  }

  get name(): string {
    return this.node?.metadata.name ?? '';
  }

  setNode(node: Node): void {
    this.node = node;
    this.allocatable = resourceFromList(node.status?.allocatable as Record<string, string> | undefined);
    this.generation = nextGeneration();
  }

  removeNode(): void {
    this.node = undefined;
    this.generation = nextGeneration();
  }

  addPod(pod: Pod | PodInfo): void {
    const info = pod instanceof PodInfo ? pod : new PodInfo(pod);
    this.pods.push(info);
    if (info.hasAffinity()) this.podsWithAffinity.push(info);
    if (info.requiredAntiAffinityTerms.length > 0) this.podsWithRequiredAntiAffinity.push(info);
    this.update(info, +1);
  }

  /** Remove a pod by uid; false if the node does not hold it. */
  removePod(pod: Pod): boolean {
    const uid = pod.metadata.uid ?? '';
    const index = this.pods.findIndex((p) => p.uid === uid);
    if (index < 0) return false;
    const [info] = this.pods.splice(index, 1);
    removeByUid(this.podsWithAffinity, uid);
    removeByUid(this.podsWithRequiredAntiAffinity, uid);
    this.update(info!, -1);
    return true;
  }

  private update(info: PodInfo, sign: 1 | -1): void {
    if (sign > 0) {
      addResource(this.requested, info.requests);
      addResource(this.nonZeroRequested, info.nonZeroRequests);
      for (const p of podHostPorts(info.pod)) this.usedPorts.add(p.ip, p.protocol, p.port);
    } else {
      subtractResource(this.requested, info.requests);
      subtractResource(this.nonZeroRequested, info.nonZeroRequests);
      for (const p of podHostPorts(info.pod)) this.usedPorts.remove(p.ip, p.protocol, p.port);
    }
    this.generation = nextGeneration();
  }

  /** A copy whose lists, sums and ports can change without touching this one (pods and nodes themselves are shared). */
  clone(): NodeInfo {
    const copy = new NodeInfo();
    copy.node = this.node;
    copy.pods = [...this.pods];
    copy.podsWithAffinity = [...this.podsWithAffinity];
    copy.podsWithRequiredAntiAffinity = [...this.podsWithRequiredAntiAffinity];
    copy.usedPorts = this.usedPorts.clone();
    copy.requested = cloneResource(this.requested);
    copy.nonZeroRequested = cloneResource(this.nonZeroRequested);
    copy.allocatable = cloneResource(this.allocatable);
    copy.imageStates = new Map(this.imageStates);
    copy.generation = this.generation;
    return copy;
  }
}

function removeByUid(list: PodInfo[], uid: string): void {
  const index = list.findIndex((p) => p.uid === uid);
  if (index >= 0) list.splice(index, 1);
}
