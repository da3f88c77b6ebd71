/**
 * Services: the generic store plus allocation, as upstream's service REST
 * (pkg/registry/core/service/storage) adds it around the generic registry.
 *
 * - create: defaults, clusterIP/clusterIPs made consistent, IP family fields
 *   filled in, cluster IPs and node ports allocated, then the generic create
 *   (prepare, validate, write); a failed write gives the allocations back.
 * - update (PUT, PATCH): values the client left out are carried over from the
 *   stored object, what the change adds is allocated before validation and
 *   what it drops is released once the write has landed; a conflict retry
 *   gives back what the failed attempt claimed.
 * - delete: once the object is gone from storage, everything it held is
 *   released (also when the last finalizer's removal deletes it).
 * - `/status` is the same store seen through the status strategy
 *   (withStrategy): it never allocates or releases.
 *
 * Allocation state lives in storage, one key per IP or port (see
 * allocation-keys.ts), so several API servers on one etcd agree on it.
 */
import { randomInt } from 'node:crypto';
import { parseCidr, type Cidr } from '../../../../machinery/cidr.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { deepCopy } from '../../../../machinery/meta.js';
import { alreadyExists, isInvalid, StatusError } from '../../../../machinery/status.js';
import { validateServiceName } from '../../../../machinery/validation/names.js';
import { isStorageError } from '../../../../storage/errors.js';
import type { ResourceDefinition } from '../../definition.js';
import { GenericStore, type DeleteParams, type DeleteResult, type StoreConfig, type WriteOptions } from '../../generic/store.js';
import type { Strategy } from '../../generic/strategy.js';
import type { RandomSource } from './allocation-errors.js';
import { defaultOnRead, ServiceAllocators, type Transaction } from './allocations.js';
import { setServiceDefaults } from './defaults.js';
import { DEFAULT_SERVICE_NODE_PORT_RANGE, parsePortRange } from './port-range.js';
import type { ServiceObject } from './service-helpers.js';
import { normalizeClusterIPs, patchAllocatedValues, serviceStatusStrategy, serviceStrategy } from './strategy.js';

/** DESIGN.md §5's default `--service-cluster-ip-range` (the process runtime keeps services on loopback). */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '127.96.0.0/12';

export interface ServiceAllocationOptions {
  /** `--service-cluster-ip-range`: a CIDR, or two (one per family) separated by a comma. */
  readonly clusterIPRange?: string | undefined;
  /** `--service-node-port-range` (default 30000-32767). */
  readonly nodePortRange?: string | undefined;
  /** Where allocators start looking (tests make it predictable). */
  readonly random?: RandomSource;
}

interface ServiceStoreConfig extends StoreConfig {
  readonly allocators: ServiceAllocators;
  /** False for views through another strategy (`/status`): they never allocate. */
  readonly allocating: boolean;
}

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export class ServiceStore extends GenericStore {
  private readonly allocators: ServiceAllocators;
  private readonly allocating: boolean;

  constructor(config: ServiceStoreConfig) {
    super(config);
    this.allocators = config.allocators;
    this.allocating = config.allocating;
  }

  /** A view through another strategy allocates nothing (upstream's status store has no allocation hooks). */
  override withStrategy(strategy: Strategy): GenericStore {
    const config = this.config as ServiceStoreConfig;
    return new ServiceStore({ ...config, strategy, allocating: this.allocating && strategy === this.strategy });
  }

  override async create(namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    if (!this.allocating) return super.create(namespace, body, options);
    const service = body as ServiceObject;
    const meta = service.metadata;
    meta.namespace = namespace;
    // The name goes into the allocations, so it is settled first (the generic store keeps a name it is given).
    if ((meta.name === undefined || meta.name === '') && meta.generateName !== undefined && meta.generateName !== '') {
      meta.name = generateName(meta.generateName);
    }
    // NamespaceLifecycle is admission: upstream runs it before anything is allocated.
    await this.checkNamespace(namespace, service);
    setServiceDefaults(service);
    normalizeClusterIPs(service, undefined);
    const dryRun = options.dryRun === true;
    let txn: Transaction;
    try {
      txn = await this.translateAllocation(() => this.allocators.allocateCreate(service, dryRun));
    } catch (e: unknown) {
      throw await this.existingInstead(e, namespace, meta.name);
    }
    let created: KubeObject;
    try {
      created = await super.create(namespace, service, options);
    } catch (e: unknown) {
      await txn.revert().catch(() => {});
      throw e;
    }
    await txn.commit().catch(() => {});
    return created;
  }

  override async update(
    namespace: string | undefined,
    name: string,
    compute: (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>,
    options: WriteOptions & { allowCreate?: boolean } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    if (!this.allocating) return super.update(namespace, name, compute, options);
    const dryRun = options.dryRun === true;
    // One transaction per attempt: a compare-and-swap retry gives back what the lost attempt claimed.
    let txn: Transaction | undefined;
    const withAllocation = async (current: KubeObject | undefined): Promise<KubeObject> => {
      if (txn !== undefined) {
        const lost = txn;
        txn = undefined;
        await lost.revert();
      }
      const old = current === undefined ? undefined : (deepCopy(current) as ServiceObject);
      const next = (await compute(current)) as ServiceObject;
      if (next.metadata?.name !== name) return next; // the generic store rejects it
      if (this.resource.namespaced) next.metadata.namespace = namespace;
      setServiceDefaults(next);
      if (old === undefined) {
        await this.checkNamespace(namespace, next);
        normalizeClusterIPs(next, undefined);
        txn = await this.translateAllocation(() => this.allocators.allocateCreate(next, dryRun));
      } else {
        defaultOnRead(old, this.allocators.defaultFamily);
        patchAllocatedValues(next, old);
        normalizeClusterIPs(next, old);
        txn = await this.translateAllocation(() => this.allocators.allocateUpdate(next, old, dryRun));
      }
      return next;
    };
    let result: { object: KubeObject; created: boolean };
    try {
      result = await super.update(namespace, name, withAllocation, options);
    } catch (e: unknown) {
      const failed = txn as Transaction | undefined;
      if (failed !== undefined) await failed.revert().catch(() => {});
      throw e;
    }
    // The write landed: release what it let go of. A release that fails leaves a key behind (upstream logs and moves on).
    const done = txn as Transaction | undefined;
    if (done !== undefined) await done.commit().catch(() => {});
    if (!dryRun && isDeletedByUpdate(result.object)) await this.allocators.releaseAll(result.object as ServiceObject).catch(() => {});
    return result;
  }

  override async delete(namespace: string | undefined, name: string, params: DeleteParams = {}): Promise<DeleteResult> {
    const result = await super.delete(namespace, name, params);
    if (this.allocating && result.deleted && params.dryRun !== true) {
      // The Service is gone whatever happens here; a release that fails leaves its keys behind (upstream logs and moves on).
      await this.allocators.releaseAll(result.object as ServiceObject).catch(() => {});
    }
    return result;
  }

  /**
   * Creating a Service that exists, asking for the address it holds, fails on
   * the address before it reaches storage, as upstream's does (422 "provided
   * IP is already allocated", not AlreadyExists). The one exception is the
   * `kubernetes` Service, which every API server creates at start
   * (bootstrap.ts): a second API server on the same store gets AlreadyExists,
   * which it expects.
   */
  private async existingInstead(e: unknown, namespace: string | undefined, name: string | undefined): Promise<unknown> {
    if (!isInvalid(e) || namespace !== 'default' || name !== 'kubernetes') return e;
    const causes = (e as StatusError).status.details?.causes ?? [];
    if (!causes.some((c) => c.message?.endsWith('is already allocated') === true)) return e;
    const existing = await this.storage.get(this.key(namespace, name)).catch(() => undefined);
    return existing === undefined ? e : alreadyExists(this.groupResource, name);
  }

  private async checkNamespace(namespace: string | undefined, object: KubeObject): Promise<void> {
    if (this.resource.namespaced && this.config.namespaceCheck !== undefined) await this.config.namespaceCheck(namespace ?? '', object);
  }

  /** Storage errors met while allocating, as the generic store reports them. */
  private async translateAllocation<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e: unknown) {
      if (isStorageError(e) && (e.code === 'Unavailable' || e.code === 'Closed')) {
        throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: 'the storage is unavailable; please try again' }, { cause: e });
      }
      throw e;
    }
  }
}

/** The object the update returned was deleted by it (its last finalizer went while it was being deleted). */
function isDeletedByUpdate(object: KubeObject): boolean {
  const meta = object.metadata;
  return meta.deletionTimestamp !== undefined && (meta.finalizers === undefined || meta.finalizers.length === 0) && (meta.deletionGracePeriodSeconds ?? 0) === 0;
}

function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_CHARS[randomInt(GENERATE_CHARS.length)];
  return `${base.length > 58 ? base.slice(0, 58) : base}${suffix}`;
}

/** Parse `--service-cluster-ip-range` (one CIDR, or two of different families separated by a comma). */
export function parseServiceClusterIPRanges(text: string): Cidr[] {
  const ranges = text.split(',').map((part) => {
    try {
      return parseCidr(part.trim());
    } catch (e: unknown) {
      throw new Error(`invalid --service-cluster-ip-range "${text}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  });
  if (ranges.length > 2 || (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family)) {
    throw new Error(`invalid --service-cluster-ip-range "${text}": at most two ranges, one of each IP family`);
  }
  return ranges;
}

/** The Service definition: its strategies, upstream's storage path, and a store that allocates from these ranges. */
export function serviceDefinition(options: ServiceAllocationOptions = {}): ResourceDefinition {
  const clusterIPRanges = parseServiceClusterIPRanges(options.clusterIPRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
  let nodePortRange;
  try {
    nodePortRange = parsePortRange(options.nodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
  } catch (e: unknown) {
    throw new Error(`invalid --service-node-port-range: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (nodePortRange.size === 0) throw new Error('invalid --service-node-port-range: the range is empty');
  return {
    strategy: serviceStrategy,
    statusStrategy: serviceStatusStrategy,
    storagePath: 'services/specs',
    validateName: validateServiceName,
    returnDeletedObject: true,
    newStore: (config: StoreConfig) => {
      // Allocations live beside the resources: `/registry/services/specs` → `/registry`.
      const prefix = config.keyPrefix.replace(/\/+$/, '').replace(/\/services\/specs$/, '');
      const allocators = new ServiceAllocators({
        storage: config.storage,
        prefix,
        clusterIPRanges,
        nodePortRange,
        ...(options.random !== undefined ? { random: options.random } : {}),
      });
      return new ServiceStore({ ...config, allocators, allocating: true });
    },
  };
}
