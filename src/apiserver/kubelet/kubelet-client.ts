/**
 * How the API server reaches a node's kubelet (upstream's
 * pkg/kubelet/client): the node's address (InternalIP first, then Hostname,
 * ExternalIP — loopback clusters name their nodes after the machine, so the
 * host name would not find the right kubelet) and its
 * status.daemonEndpoints.kubeletEndpoint.Port (10250 when unset), over HTTPS
 * with the API server's kubelet client certificate
 * (--kubelet-client-certificate/--kubelet-client-key), checking the kubelet's
 * serving certificate against --kubelet-certificate-authority when given
 * (upstream skips the check without it).
 */
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { Node } from 'kubernetes-types/core/v1.js';
import { badRequest, internalError, reasonForCode, StatusError } from '../../machinery/status.js';
import type { StoreLookup } from '../endpoints/target.js';


export interface KubeletClientConfig {
  /** PEM of the client certificate and key (--kubelet-client-certificate, --kubelet-client-key). */
  readonly cert?: string;
  readonly key?: string;
  /** PEM of the CA that signs kubelet serving certificates (--kubelet-certificate-authority). */
  readonly ca?: string;
}

export interface KubeletLocation {
  readonly host: string;
  readonly port: number;
}

const PREFERRED_ADDRESS_TYPES = ['InternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS', 'ExternalIP'];
export const DEFAULT_KUBELET_PORT = 10250;

/** Where the kubelet of `nodeName` listens. */
export async function kubeletLocation(lookup: StoreLookup | undefined, nodeName: string): Promise<KubeletLocation> {
  const nodes = lookup?.('', 'v1', 'nodes');
  if (nodes === undefined) throw internalError(new Error('nodes are not served'));
  const node = (await nodes.get(undefined, nodeName)) as unknown as Node;
  const addresses = node.status?.addresses ?? [];
  for (const type of PREFERRED_ADDRESS_TYPES) {
    const address = addresses.find((a) => a.type === type && a.address !== '');
    if (address !== undefined) {
      const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
      return { host: address.address, port: port !== undefined && port > 0 ? port : DEFAULT_KUBELET_PORT };
    }
  }
  throw badRequest(`no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
}

/** The TLS options of a connection to the kubelet at `location` (host, port, client certificate, CA check). */
export function kubeletTlsOptions(config: KubeletClientConfig, location: KubeletLocation): Record<string, unknown> {
  return {
    host: location.host,
    port: location.port,
    ...(isIP(location.host) === 0 ? { servername: location.host } : {}),
    ...(config.cert !== undefined ? { cert: config.cert } : {}),
    ...(config.key !== undefined ? { key: config.key } : {}),
    ...(config.ca !== undefined ? { ca: config.ca, rejectUnauthorized: true } : { rejectUnauthorized: false }),
  };
}

/** A GET to the kubelet; resolves with the response once its headers arrived. */
export function kubeletGet(config: KubeletClientConfig, location: KubeletLocation, path: string, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ ...kubeletTlsOptions(config, location), method: 'GET', path, agent: false, signal }, resolve);
    req.on('error', (e) => reject(internalError(new Error(`error dialing backend: ${e.message}`))));
    req.end();
  });
}

/** Read (at most 1 KiB of) an error answer and turn it into the Status upstream's GenericHttpResponseChecker makes. */
export async function kubeletError(res: IncomingMessage): Promise<StatusError> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (size < 1024) chunks.push(chunk);
    size += chunk.length;
  }
  const text = Buffer.concat(chunks).subarray(0, 1024).toString('utf8').replace(/\n$/, '');
  const code = res.statusCode ?? 500;
  if (code === 500) return internalError(new Error(text));
  if (code === 400) return badRequest(text);
  return new StatusError({ code, reason: reasonForCode(code), message: text });
}

/** A TLS connection to the kubelet for an upgrade. */
export function dialKubelet(config: KubeletClientConfig, location: KubeletLocation): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...kubeletTlsOptions(config, location), ALPNProtocols: ['http/1.1'] });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', (e) => reject(internalError(new Error(`error dialing backend: ${e.message}`))));
  });
}
