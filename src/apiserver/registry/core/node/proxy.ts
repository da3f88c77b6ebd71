/**
 * nodes/proxy (upstream's node ResourceLocation): `NODE` or `NODE:PORT`
 * (the kubelet's own port) reaches the node's kubelet over HTTPS with the
 * API server's kubelet client certificate, found as pods/log finds it
 * (../../../kubelet/kubelet-client.ts); the kubelet then authorizes the API
 * server for nodes/proxy (or nodes/stats, nodes/metrics, nodes/log) itself.
 * Any other port (`https:NODE:9100`) is a plain proxy to the node's address
 * on that port.
 */
import { isIP } from 'node:net';
import { badRequest, serviceUnavailable } from '../../../../machinery/status.js';
import type { VerbHandler } from '../../../endpoints/target.js';
import { kubeletLocation, kubeletTlsOptions, type KubeletClientConfig, type KubeletLocation } from '../../../kubelet/kubelet-client.js';
import type { ProxyBackend } from '../../../proxy/backend-proxy.js';
import type { ProxyId } from '../../../proxy/proxy-id.js';
import { newProxyHandlers } from '../../../proxy/proxy-handlers.js';
import { ADDRESS_NOT_ALLOWED, isProxyableIP } from '../../../proxy/proxyable-ip.js';

/** Where a proxy request for `id` goes on the node whose kubelet is at `kubelet`. */
export function nodeBackend(config: KubeletClientConfig, kubelet: KubeletLocation, id: ProxyId): ProxyBackend {
  if (isIP(kubelet.host) !== 0 && !isProxyableIP(kubelet.host)) throw badRequest(ADDRESS_NOT_ALLOWED);
  if (id.port === '' || id.port === String(kubelet.port)) return { scheme: 'https', host: kubelet.host, port: kubelet.port, tls: kubeletTlsOptions(config, kubelet) };
  const port = /^\d+$/.test(id.port) ? Number(id.port) : NaN;
  if (!(port >= 1 && port <= 65535)) throw serviceUnavailable(`error trying to reach service: dial tcp: lookup tcp/${id.port}: unknown port`);
  return { scheme: id.scheme === '' ? 'http' : id.scheme, host: kubelet.host, port };
}

export function nodeProxyHandlers(config: KubeletClientConfig): Record<string, VerbHandler> {
  return newProxyHandlers('node', async (t, id) => nodeBackend(config, await kubeletLocation(t.lookup, id.name), id));
}
