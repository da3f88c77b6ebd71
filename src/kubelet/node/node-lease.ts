/**
 * The node's heartbeat: the Lease kube-node-lease/<node>, held by the node,
 * renewed every leaseDuration/4 (10 s for upstream's 40 s), as upstream's
 * kubelet nodelease controller. The Lease is owned by the Node (so the garbage
 * collector removes it with the Node) once the Node's uid is known. A renewal
 * updates the last Lease it wrote; on a Conflict or NotFound it reads (or
 * creates) the Lease again. Failures are retried with a backoff from 200 ms up
 * to the renew interval; the loop never gives up until stopped.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { formatMicroTime } from '../../client/leader-election/leader-elector.js';
import type { Client, ResourceClient } from '../../client/rest/interface.js';
import { LEASES } from '../../client/rest/resources.js';
import type { Logger } from '../../machinery/logger.js';
import type { KubeObject } from '../../machinery/meta.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { Node } from '../types.js';
import { abortableDelay } from './registration.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export type LeaseObject = Lease & KubeObject;

export interface NodeLeaseOptions {
  readonly client: Client;
  readonly nodeName: string;
  /** --node-lease-duration-seconds (upstream 40). */
  readonly leaseDurationSeconds: number;
  /** The latest Node (its uid for the owner reference); undefined before registration. */
  readonly node: () => Node | undefined;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface NodeLease {
  /** Renews until the signal aborts; resolves then. */
  run(signal: AbortSignal): Promise<void>;
  /** The last Lease written (tests, metrics). */
  readonly latest: LeaseObject | undefined;
}

export function newNodeLease(options: NodeLeaseOptions): NodeLease {
  const leases: ResourceClient<LeaseObject> = options.client.resource<LeaseObject>(LEASES);
  const now = options.now ?? Date.now;
  const renewIntervalMs = (options.leaseDurationSeconds * 1000) / 4;
  let latest: LeaseObject | undefined;

  /** `base` with this node as holder, renewed now, and owned by the Node when its uid is known. */
  const renewed = (base: LeaseObject | undefined): LeaseObject => {
    const lease: LeaseObject = base !== undefined ? structuredClone(base) : { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: options.nodeName, namespace: NODE_LEASE_NAMESPACE } };
    lease.spec = { ...lease.spec, holderIdentity: options.nodeName, leaseDurationSeconds: options.leaseDurationSeconds, renewTime: formatMicroTime(now()) };
    const node = options.node();
    if ((lease.metadata.ownerReferences ?? []).length === 0 && node?.metadata.uid !== undefined) {
      lease.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: options.nodeName, uid: node.metadata.uid }];
    }
    return lease;
  };

  /** The Lease as stored, created when missing. */
  const ensure = async (): Promise<LeaseObject> => {
    try {
      return await leases.get(options.nodeName, { namespace: NODE_LEASE_NAMESPACE });
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
    }
    return leases.create(renewed(undefined), { namespace: NODE_LEASE_NAMESPACE });
  };

  const renewOnce = async (): Promise<void> => {
    if (latest !== undefined) {
      try {
        latest = await leases.update(renewed(latest), { namespace: NODE_LEASE_NAMESPACE });
        return;
      } catch (e: unknown) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
        latest = undefined;
      }
    }
    const current = await ensure();
    latest = await leases.update(renewed(current), { namespace: NODE_LEASE_NAMESPACE });
  };

  return {
    get latest() {
      return latest;
    },
    async run(signal: AbortSignal): Promise<void> {
      let backoffMs = 200;
      while (!signal.aborted) {
        try {
          await renewOnce();
          backoffMs = 200;
          await abortableDelay(renewIntervalMs, signal);
        } catch (e: unknown) {
          options.logger.warn({ err: e, lease: `${NODE_LEASE_NAMESPACE}/${options.nodeName}` }, 'failed to update lease');
          await abortableDelay(backoffMs, signal);
          backoffMs = Math.min(backoffMs * 2, renewIntervalMs);
        }
      }
    },
  };
}
