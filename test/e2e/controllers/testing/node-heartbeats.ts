/**
 * What kubelets do for their nodes' health, played by a test: each node is
 * created with a Ready=True status and a Lease in kube-node-lease, and the
 * Leases of the nodes that are "alive" are renewed every periodMs. A test
 * stops a node's heartbeat to make the node controller see it fail, and
 * resumes it to make it recover.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../../../src/client/rest/interface.js';
import { LEASES, NODES } from '../../../../src/client/rest/resources.js';
import { waitFor } from '../../../../src/client/testing/wait-for.js';
import { formatTime, type KubeObject } from '../../../../src/machinery/meta.js';

export type NodeObject = KubeObject & Node;
type LeaseObject = KubeObject & Lease;

const microTime = (): string => new Date().toISOString().replace('Z', '000Z');

export interface NodeHeartbeats {
  /** Renew the node's Lease no more. */
  stop(name: string): void;
  /** Post Ready again and renew the Lease again. */
  resume(name: string): Promise<void>;
  /** Stop every renewal (for `after`). */
  close(): void;
}

export async function startNodeHeartbeats(client: Client, names: readonly string[], options: { periodMs?: number } = {}): Promise<NodeHeartbeats> {
  const nodes = client.resource<NodeObject>(NODES);
  const leases = client.resource<LeaseObject>(LEASES);
  const alive = new Set<string>();

  /** What a kubelet posts: Ready=True with a fresh heartbeat (again on a conflict with the controllers' writes, as a kubelet does). */
  const postReady = (name: string): Promise<void> =>
    waitFor(async () => {
      const now = formatTime(new Date());
      const current = await nodes.get(name);
      await nodes.updateStatus({
        ...current,
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] },
      });
      return true;
    });

  const renew = async (): Promise<void> => {
    for (const name of alive) {
      const lease = await leases.get(name, { namespace: 'kube-node-lease' });
      await leases.update({ ...lease, spec: { ...lease.spec, renewTime: microTime() } });
    }
  };

  for (const name of names) {
    await nodes.create({ metadata: { name } });
    await postReady(name);
    await leases.create({ metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime() } });
    alive.add(name);
  }
  // A failed renewal (a conflict with nobody, a slow server) is simply tried again next period.
  const timer = setInterval(() => void renew().catch(() => {}), options.periodMs ?? 200);
  return {
    stop: (name) => void alive.delete(name),
    resume: async (name) => {
      alive.add(name);
      await postReady(name);
    },
    close: () => clearInterval(timer),
  };
}
