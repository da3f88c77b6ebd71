/**
 * The address defaults of DESIGN.md §5: with the process runtime everything
 * stays on loopback, so pods and services get 127.x ranges.
 */
import { createServer } from 'node:net';
import { addressAt, parseCidr } from '../machinery/cidr.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '127.96.0.0/12';
export const DEFAULT_CLUSTER_CIDR = '127.244.0.0/16';
export const DEFAULT_NODE_IP = '127.0.0.1';

/** The `kubernetes` Service's clusterIP: the first address of the service range. */
export function kubernetesServiceIP(serviceClusterIPRange: string): string {
  return addressAt(parseCidr(serviceClusterIPRange), 1n);
}

/** A port that is free on the host right now (the kernel picks it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether the port can be bound on all addresses now (the API server binds 0.0.0.0). */
export function portIsFree(port: number, host = '0.0.0.0'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
