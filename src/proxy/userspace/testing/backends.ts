/** Loopback backends and clients for the userspace proxier's tests. */
import { createSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import type { Endpoint, ProxyState, ServicePort } from '../../interface.js';
import { servicePortKey } from '../../interface.js';

/** A TCP server on 127.0.0.1 that writes its name and closes. */
export async function namedBackend(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end(name));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A port on `ip` that nothing listens on now. */
export async function freePortOn(ip: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, ip, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Connect, read everything, return it; '' when the peer closes without a word; throws on a refused connection. */
export function readFrom(ip: string, port: number, localAddress?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port, ...(localAddress !== undefined ? { localAddress } : {}) });
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
  });
}

/** Send one datagram to ip:port and wait for the reply. */
export function udpRequest(ip: string, port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.on('message', (msg) => {
      socket.close();
      resolve(msg.toString());
    });
    socket.on('error', (e) => {
      socket.close();
      reject(e);
    });
    socket.send(text, port, ip);
  });
}

export const endpoint = (port: number, overrides: Partial<Endpoint> = {}): Endpoint => ({
  ip: '127.0.0.1',
  port,
  ready: true,
  serving: true,
  terminating: false,
  isLocal: false,
  ...overrides,
});

export function servicePort(name: string, ip: string, port: number, overrides: Partial<ServicePort> = {}): ServicePort {
  const portName = { namespace: 'default', name, port: 'http', protocol: overrides.name?.protocol ?? 'TCP' } as const;
  return {
    key: servicePortKey(portName),
    name: portName,
    type: 'ClusterIP',
    clusterIPs: [ip],
    port,
    externalIPs: [],
    loadBalancerIPs: [],
    internalTrafficPolicyLocal: false,
    externalTrafficPolicyLocal: false,
    ...overrides,
  };
}

export function stateOf(...entries: (readonly [ServicePort, readonly Endpoint[]])[]): ProxyState {
  return {
    services: new Map(entries.map(([s]) => [s.key, s])),
    endpoints: new Map(entries.map(([s, e]) => [s.key, e])),
    sliceVersions: new Map(),
  };
}
