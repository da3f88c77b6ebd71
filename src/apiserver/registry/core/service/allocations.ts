/**
 * What a Service create or update allocates and releases, after upstream's
 * pkg/registry/core/service/storage/alloc.go: the IP family fields
 * (ipFamilyPolicy, ipFamilies) from the cluster's ranges, the cluster IPs,
 * the node ports and the health check node port, with upstream's errors.
 *
 * Storage has no transactions spanning keys, so each step is undone by hand:
 * `allocateCreate`/`allocateUpdate` return a {@link Transaction} whose
 * `revert` gives back what was claimed (the write of the Service failed) and
 * whose `commit` releases what the update let go of (it succeeded).
 */
import { FieldPath, invalid as fieldInvalid, type FieldError } from '../../../../machinery/field-errors.js';
import type { Cidr } from '../../../../machinery/cidr.js';
import { invalid, StatusError } from '../../../../machinery/status.js';
import { goQuote, goStringSlice, goSyntax } from '../../../../machinery/validation/go-text.js';
import type { ObjectStore } from '../../generic/object-store.js';
import { AllocationError, type RandomSource } from './allocation-errors.js';
import { ClusterIPAllocator } from './ip-allocator.js';
import { NodePortAllocator, NodePortOperation } from './port-allocator.js';
import type { PortRange } from './port-range.js';
import {
  CLUSTER_IP_NONE,
  needsHealthCheck,
  nodePortsOf,
  portsOf,
  sameStrings,
  serviceRef,
  shouldAllocateNodePorts,
  specOf,
  typeOf,
  type IPFamily,
  type ServiceObject,
} from './service-helpers.js';
import { normalizeClusterIPs } from './strategy.js';
import { ipFamilyOf, validateServiceClusterIPsRelatedFields } from './validation.js';

/** Undo or finish the allocations of one request. */
export interface Transaction {
  /** The Service was written: release what it no longer holds. */
  commit(): Promise<void>;
  /** The Service was not written: give back what was claimed for it. */
  revert(): Promise<void>;
}

export interface ServiceAllocatorsOptions {
  readonly storage: ObjectStore;
  /** The storage prefix (`--etcd-prefix`, e.g. `/registry`). */
  readonly prefix: string;
  /** `--service-cluster-ip-range`: one range, or one of each family (the first is the default family). */
  readonly clusterIPRanges: readonly Cidr[];
  readonly nodePortRange: PortRange;
  readonly random?: RandomSource;
}

const SERVICE = { group: '', kind: 'Service' };
const spec = FieldPath.root('spec');

/** Upstream's errors.NewInternalError(err): 500 with the error's text. */
function internal(message: string): StatusError {
  return new StatusError({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } });
}

const invalidService = (service: ServiceObject, errors: FieldError[]): StatusError => invalid(SERVICE, service.metadata.name ?? '', errors);
const stringSlice = (values: readonly string[] | undefined): unknown => goSyntax(goStringSlice(values ?? null));
const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Allocation errors become upstream's; anything else (storage down) passes on. */
function rethrowUnlessAllocation(e: unknown): void {
  if (!(e instanceof AllocationError)) throw e;
}

const NO_OP: Transaction = { commit: async () => {}, revert: async () => {} };

function combine(txns: readonly Transaction[]): Transaction {
  return {
    commit: async () => {
      for (const t of txns) await t.commit();
    },
    revert: async () => {
      for (const t of txns) await t.revert();
    },
  };
}

export class ServiceAllocators {
  private readonly ipAllocators = new Map<IPFamily, ClusterIPAllocator>();
  readonly defaultFamily: IPFamily;
  readonly nodePorts: NodePortAllocator;

  constructor(options: ServiceAllocatorsOptions) {
    for (const range of options.clusterIPRanges) {
      const allocator = new ClusterIPAllocator(range, options.storage, options.prefix, options.random);
      if (this.ipAllocators.has(allocator.family)) throw new Error('--service-cluster-ip-range may hold at most one range of each IP family');
      this.ipAllocators.set(allocator.family, allocator);
    }
    const first = options.clusterIPRanges[0];
    if (first === undefined) throw new Error('--service-cluster-ip-range must hold a range');
    this.defaultFamily = first.family === 4 ? 'IPv4' : 'IPv6';
    this.nodePorts = new NodePortAllocator(options.nodePortRange, options.storage, options.prefix, options.random);
  }

  /** The allocator of a family, if the cluster has a range of it. */
  ipAllocator(family: IPFamily): ClusterIPAllocator | undefined {
    return this.ipAllocators.get(family);
  }

  /** Fill in the IP family fields and allocate cluster IPs and node ports for a new Service. */
  async allocateCreate(service: ServiceObject, dryRun: boolean): Promise<Transaction> {
    this.initIPFamilyFields(service, undefined);
    const ips = await this.allocClusterIPsTxn(service, dryRun);
    try {
      const ports = await this.allocNodePortsTxn(service, dryRun);
      return combine([ips, ports]);
    } catch (e: unknown) {
      await ips.revert();
      throw e;
    }
  }

  /** Allocate what an update adds (a type change, a second family, new node ports) and release on commit what it drops. */
  async allocateUpdate(service: ServiceObject, old: ServiceObject, dryRun: boolean): Promise<Transaction> {
    this.initIPFamilyFields(service, old);
    const ips = await this.updateClusterIPsTxn(service, old, dryRun);
    try {
      const ports = await this.updateNodePortsTxn(service, old, dryRun);
      return combine([ips, ports]);
    } catch (e: unknown) {
      await ips.revert();
      throw e;
    }
  }

  /** Release everything a deleted Service held. */
  async releaseAll(service: ServiceObject): Promise<void> {
    const owner = serviceRef(service);
    if (typeOf(service) !== 'ExternalName' && service.spec?.clusterIPs?.[0] !== CLUSTER_IP_NONE) {
      for (const ip of service.spec?.clusterIPs ?? []) {
        const family = ipFamilyOf(ip);
        if (family !== undefined) await this.ipAllocators.get(family)?.release(ip, owner);
      }
    }
    for (const port of nodePortsOf(service)) await this.nodePorts.release(port, owner);
    const healthCheck = service.spec?.healthCheckNodePort ?? 0;
    if (needsHealthCheck(service) && healthCheck > 0) await this.nodePorts.release(healthCheck, owner);
  }

  /**
   * Upstream's initIPFamilyFields: default ipFamilyPolicy (the old one on
   * update; RequireDualStack for a headless Service without selector; else
   * SingleStack) and ipFamilies (from the clusterIPs, else the cluster's
   * default family), and refuse families the cluster has no range for.
   */
  initIPFamilyFields(service: ServiceObject, old: ServiceObject | undefined): void {
    if (typeOf(service) === 'ExternalName') return;
    if (isMatchingPreferDualStack(service, old)) return;
    const s = specOf(service);
    const noSelector = Object.keys(s.selector ?? {}).length === 0;
    if (s.ipFamilyPolicy == null) {
      if (old?.spec?.ipFamilyPolicy != null) s.ipFamilyPolicy = old.spec.ipFamilyPolicy;
      else if (s.clusterIP === CLUSTER_IP_NONE && noSelector) s.ipFamilyPolicy = 'RequireDualStack';
      else s.ipFamilyPolicy = 'SingleStack';
    }
    const loose = validateServiceClusterIPsRelatedFields(service, old);
    if (loose.length > 0) throw invalidService(service, loose);

    const errs: FieldError[] = [];
    const policyPath = spec.child('ipFamilyPolicy');
    if (old !== undefined) {
      if (s.ipFamilyPolicy === 'SingleStack') {
        if (sameStrings(old.spec?.clusterIPs, s.clusterIPs) && (s.clusterIPs?.length ?? 0) > 1) s.clusterIPs = s.clusterIPs!.slice(0, 1);
        if (sameStrings(old.spec?.ipFamilies, s.ipFamilies) && (s.ipFamilies?.length ?? 0) > 1) s.ipFamilies = s.ipFamilies!.slice(0, 1);
      } else {
        const reducedIPs = (s.clusterIPs?.length ?? 0) > 0 && s.clusterIPs!.length < (old.spec?.clusterIPs?.length ?? 0);
        const reducedFamilies = (s.ipFamilies?.length ?? 0) > 0 && s.ipFamilies!.length < (old.spec?.ipFamilies?.length ?? 0);
        if (reducedIPs) errs.push(fieldInvalid(policyPath, s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
        if (reducedFamilies) errs.push(fieldInvalid(policyPath, s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
    if (s.ipFamilyPolicy === 'SingleStack') {
      if (s.clusterIPs?.length === 2) {
        errs.push(fieldInvalid(policyPath, s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      }
      if (s.ipFamilies?.length === 2) {
        errs.push(fieldInvalid(policyPath, s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
      }
    }
    const families: string[] = [...(s.ipFamilies ?? [])];
    for (const [i, ip] of (s.clusterIPs ?? []).entries()) {
      if (ip === CLUSTER_IP_NONE) break;
      const family = ipFamilyOf(ip) ?? 'unknown';
      if (i >= families.length) {
        if (!this.ipAllocators.has(family as IPFamily)) {
          errs.push(fieldInvalid(spec.child('clusterIPs').index(i), stringSlice(s.clusterIPs), `${family} is not configured on this cluster`));
        } else {
          families.push(family);
        }
      }
    }
    if (families.length > 0) s.ipFamilies = families;
    if (errs.length > 0) throw invalidService(service, errs);

    if (s.clusterIP === CLUSTER_IP_NONE && noSelector) {
      if (families.length === 0) families.push(this.defaultFamily);
      if (families.length < 2 && s.ipFamilyPolicy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
      s.ipFamilies = families;
      return;
    }
    if (s.ipFamilyPolicy === 'RequireDualStack' && this.ipAllocators.size < 2) {
      errs.push(fieldInvalid(policyPath, s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((family, i) => {
      if (!this.ipAllocators.has(family as IPFamily)) errs.push(fieldInvalid(spec.child('ipFamilies').index(i), family, 'not configured on this cluster'));
    });
    if (errs.length > 0) throw invalidService(service, errs);
    if (families.length === 0) families.push(this.defaultFamily);
    if (s.ipFamilyPolicy !== 'SingleStack' && families.length === 1 && this.ipAllocators.size === 2) {
      families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    }
    s.ipFamilies = families;
  }

  private async allocClusterIPsTxn(service: ServiceObject, dryRun: boolean): Promise<Transaction> {
    const allocated = await this.allocClusterIPs(service, dryRun);
    return {
      commit: async () => {},
      revert: async () => {
        if (!dryRun) await this.releaseIPs(allocated, service);
      },
    };
  }

  /** allocClusterIPs: the address of each family the Service asks for (a requested one, or any). */
  private async allocClusterIPs(service: ServiceObject, dryRun: boolean): Promise<Map<IPFamily, string>> {
    if (typeOf(service) === 'ExternalName') return new Map();
    const s = specOf(service);
    if (s.clusterIPs?.[0] === CLUSTER_IP_NONE) return new Map();
    const clusterIPs = s.clusterIPs ?? [];
    s.clusterIPs = clusterIPs;
    const wanted = new Map<IPFamily, string>();
    (s.ipFamilies ?? []).forEach((family, i) => {
      if (i > clusterIPs.length - 1) clusterIPs.push('');
      wanted.set(family as IPFamily, clusterIPs[i]!);
    });
    const allocated = await this.allocIPs(service, wanted, dryRun);
    for (const [family, ip] of allocated) {
      const i = (s.ipFamilies ?? []).indexOf(family);
      if (i < 0) continue;
      clusterIPs[i] = ip;
      if (i === 0) s.clusterIP = ip;
    }
    return allocated;
  }

  private async allocIPs(service: ServiceObject, wanted: ReadonlyMap<IPFamily, string>, dryRun: boolean): Promise<Map<IPFamily, string>> {
    const owner = serviceRef(service);
    const allocated = new Map<IPFamily, string>();
    try {
      for (const [family, ip] of wanted) {
        const allocator = this.ipAllocators.get(family)!;
        if (ip === '') {
          try {
            allocated.set(family, await allocator.allocateNext(owner, dryRun));
          } catch (e: unknown) {
            rethrowUnlessAllocation(e);
            throw internal(`failed to allocate a serviceIP: ${errorText(e)}`);
          }
        } else {
          if (ipFamilyOf(ip) === undefined) throw internal(`failed to parse service IP ${goQuote(ip)}`);
          try {
            allocated.set(family, await allocator.allocate(ip, owner, dryRun));
          } catch (e: unknown) {
            rethrowUnlessAllocation(e);
            throw invalidService(service, [
              fieldInvalid(spec.child('clusterIPs'), stringSlice(service.spec?.clusterIPs), `failed to allocate IP ${ip}: ${errorText(e)}`),
            ]);
          }
        }
      }
    } catch (e: unknown) {
      if (!dryRun) await this.releaseIPs(allocated, service);
      throw e;
    }
    return allocated;
  }

  private async releaseIPs(ips: ReadonlyMap<IPFamily, string>, service: ServiceObject): Promise<void> {
    const owner = serviceRef(service);
    for (const [family, ip] of ips) await this.ipAllocators.get(family)?.release(ip, owner);
  }

  private async allocNodePortsTxn(service: ServiceObject, dryRun: boolean): Promise<Transaction> {
    const op = new NodePortOperation(this.nodePorts, serviceRef(service), dryRun);
    try {
      const type = typeOf(service);
      if (type === 'NodePort' || type === 'LoadBalancer') await initNodePorts(service, op);
      if (needsHealthCheck(service)) await allocHealthCheckNodePort(service, op);
    } catch (e: unknown) {
      await op.revert();
      throw e;
    }
    return { commit: () => op.commit(), revert: () => op.revert() };
  }

  /** updateClusterIPs: from ExternalName allocate all; to ExternalName release all; a second family added or dropped. */
  private async updateClusterIPsTxn(service: ServiceObject, old: ServiceObject, dryRun: boolean): Promise<Transaction> {
    if (isMatchingPreferDualStack(service, old)) return NO_OP;
    const s = specOf(service);
    let allocated = new Map<IPFamily, string>();
    const toRelease = new Map<IPFamily, string>();
    const oldFamilies = old.spec?.ipFamilies ?? [];
    const oldIPs = old.spec?.clusterIPs ?? [];
    if (typeOf(old) === 'ExternalName' && typeOf(service) !== 'ExternalName') {
      allocated = await this.allocClusterIPs(service, dryRun);
    } else if (oldIPs[0] === CLUSTER_IP_NONE) {
      return NO_OP;
    } else if (typeOf(old) !== 'ExternalName' && typeOf(service) === 'ExternalName') {
      oldFamilies.forEach((family, i) => {
        if (oldIPs[i] !== undefined) toRelease.set(family as IPFamily, oldIPs[i]!);
      });
    } else if (oldFamilies.length === 1 && s.ipFamilies?.length === 2) {
      const clusterIPs = s.clusterIPs ?? [];
      s.clusterIPs = clusterIPs;
      if (clusterIPs.length < 2) clusterIPs.push('');
      const family = s.ipFamilies[1] as IPFamily;
      allocated = await this.allocIPs(service, new Map([[family, clusterIPs[1]!]]), dryRun);
      clusterIPs[1] = allocated.get(family)!;
    } else if (oldFamilies.length === 2 && s.ipFamilies?.length === 1 && oldIPs[1] !== undefined) {
      toRelease.set(oldFamilies[1] as IPFamily, oldIPs[1]);
    }
    return {
      commit: async () => {
        if (!dryRun) await this.releaseIPs(toRelease, old);
      },
      revert: async () => {
        if (!dryRun) await this.releaseIPs(allocated, service);
      },
    };
  }

  private async updateNodePortsTxn(service: ServiceObject, old: ServiceObject, dryRun: boolean): Promise<Transaction> {
    const op = new NodePortOperation(this.nodePorts, serviceRef(service), dryRun);
    const oldType = typeOf(old);
    const type = typeOf(service);
    try {
      if ((oldType === 'NodePort' || oldType === 'LoadBalancer') && (type === 'ExternalName' || type === 'ClusterIP')) {
        for (const port of nodePortsOf(old)) op.releaseDeferred(port);
      }
      if (type === 'NodePort' || type === 'LoadBalancer') await updateNodePorts(service, old, op);
      const needed = needsHealthCheck(old);
      const needs = needsHealthCheck(service);
      if (!needed && needs) await allocHealthCheckNodePort(service, op);
      else if (needed && !needs && (old.spec?.healthCheckNodePort ?? 0) !== 0) op.releaseDeferred(old.spec!.healthCheckNodePort!);
    } catch (e: unknown) {
      await op.revert();
      throw e;
    }
    return { commit: () => op.commit(), revert: () => op.revert() };
  }
}

/** initNodePorts: ports with the same port number share a node port; requested ones are claimed, the rest allocated. */
async function initNodePorts(service: ServiceObject, op: NodePortOperation): Promise<void> {
  const byPort = new Map<number, number>();
  const ports = portsOf(service);
  for (const [i, port] of ports.entries()) {
    if ((port.nodePort ?? 0) === 0 && !shouldAllocateNodePorts(service)) continue;
    const already = byPort.get(port.port) ?? 0;
    if (already === 0) {
      const requested = ports.find((p) => p.port === port.port && (p.nodePort ?? 0) !== 0)?.nodePort ?? 0;
      if (requested !== 0) {
        await claimRequested(service, op, requested, i);
        port.nodePort = requested;
        byPort.set(port.port, requested);
      } else {
        const next = await allocateNextNodePort(op);
        port.nodePort = next;
        byPort.set(port.port, next);
      }
    } else if ((port.nodePort ?? 0) !== already) {
      if ((port.nodePort ?? 0) === 0) port.nodePort = already;
      else await claimRequested(service, op, port.nodePort!, i);
    }
  }
}

/** updateNodePorts: claim the node ports the update adds, allocate the missing ones, release on commit the ones it drops. */
async function updateNodePorts(service: ServiceObject, old: ServiceObject, op: NodePortOperation): Promise<void> {
  const oldPorts = nodePortsOf(old);
  const seen = new Set<string>();
  const claimed = new Set<number>();
  for (const [i, port] of portsOf(service).entries()) {
    if ((port.nodePort ?? 0) === 0 && !shouldAllocateNodePorts(service)) continue;
    let nodePort = port.nodePort ?? 0;
    if (nodePort !== 0) {
      if (!oldPorts.includes(nodePort) && !claimed.has(nodePort)) {
        await claimRequested(service, op, nodePort, i);
        claimed.add(nodePort);
      }
    } else {
      nodePort = await allocateNextNodePort(op);
      port.nodePort = nodePort;
    }
    const key = `${port.protocol ?? ''} ${nodePort}`;
    if (seen.has(key)) throw internal(`duplicate nodePort: {${key}}`);
    seen.add(key);
  }
  const kept = nodePortsOf(service);
  for (const port of oldPorts) if (!kept.includes(port)) op.releaseDeferred(port);
}

async function claimRequested(service: ServiceObject, op: NodePortOperation, nodePort: number, index: number): Promise<void> {
  try {
    await op.allocate(nodePort);
  } catch (e: unknown) {
    rethrowUnlessAllocation(e);
    throw invalidService(service, [fieldInvalid(spec.child('ports').index(index).child('nodePort'), nodePort, errorText(e))]);
  }
}

async function allocateNextNodePort(op: NodePortOperation): Promise<number> {
  try {
    return await op.allocateNext();
  } catch (e: unknown) {
    rethrowUnlessAllocation(e);
    throw internal(`failed to allocate a nodePort: ${errorText(e)}`);
  }
}

async function allocHealthCheckNodePort(service: ServiceObject, op: NodePortOperation): Promise<void> {
  const s = specOf(service);
  const requested = s.healthCheckNodePort ?? 0;
  try {
    if (requested !== 0) await op.allocate(requested);
    else s.healthCheckNodePort = await op.allocateNext();
  } catch (e: unknown) {
    rethrowUnlessAllocation(e);
    throw internal(
      requested !== 0
        ? `failed to allocate requested HealthCheck NodePort ${requested}: ${errorText(e)}`
        : `failed to allocate a HealthCheck NodePort 0: ${errorText(e)}`,
    );
  }
}

/** Both PreferDualStack, same type (one with cluster IPs), same clusterIPs and families: nothing to re-allocate. */
function isMatchingPreferDualStack(service: ServiceObject, old: ServiceObject | undefined): boolean {
  if (old === undefined || service.spec?.ipFamilyPolicy == null) return false;
  const type = typeOf(service);
  if (typeOf(old) !== type) return false;
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') return false;
  if (service.spec.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (old.spec?.ipFamilyPolicy != null && old.spec.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameStrings(old.spec?.clusterIPs, service.spec.clusterIPs) && sameStrings(old.spec?.ipFamilies, service.spec.ipFamilies);
}

/**
 * What upstream's read decorator fills in for a Service stored before these
 * fields existed: clusterIPs from clusterIP, the family fields from them.
 */
export function defaultOnRead(service: ServiceObject, defaultFamily: IPFamily): void {
  normalizeClusterIPs(service, undefined);
  if (typeOf(service) === 'ExternalName') return;
  const s = specOf(service);
  if ((s.ipFamilies?.length ?? 0) > 0) return;
  if (s.clusterIP === CLUSTER_IP_NONE) {
    const noSelector = Object.keys(s.selector ?? {}).length === 0;
    s.ipFamilyPolicy ??= noSelector ? 'RequireDualStack' : 'SingleStack';
    s.ipFamilies = [defaultFamily];
    return;
  }
  const first = s.clusterIPs?.[0];
  if (first === undefined || first === '') return;
  s.ipFamilyPolicy ??= 'SingleStack';
  s.ipFamilies = [ipFamilyOf(first) ?? defaultFamily];
}
