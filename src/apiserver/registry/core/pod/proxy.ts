/**
 * pods/proxy (upstream's pod ResourceLocation): `NAME`, `NAME:PORT` or
 * `SCHEME:NAME:PORT` reaches the pod's first IP on that port, by default
 * the first port a container declares (or the scheme's own, 80 or 443).
 * The pod must have an address the API server may proxy to ("address not
 * allowed" otherwise). A port name is looked up among the containers'
 * ports; one that no container names fails as Go's dialer fails upstream.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, serviceUnavailable } from '../../../../machinery/status.js';
import type { VerbHandler } from '../../../endpoints/target.js';
import type { ProxyBackend } from '../../../proxy/backend-proxy.js';
import type { ProxyId } from '../../../proxy/proxy-id.js';
import { newProxyHandlers } from '../../../proxy/proxy-handlers.js';
import { ADDRESS_NOT_ALLOWED, isProxyableIP } from '../../../proxy/proxyable-ip.js';

const unknownPort = (port: string): Error => serviceUnavailable(`error trying to reach service: dial tcp: lookup tcp/${port}: unknown port`);

/** The port number `port` names in `pod` ('' is the first declared port, else the scheme's default). */
function portNumber(pod: Pod, port: string, scheme: 'http' | 'https'): number {
  const containers = pod.spec?.containers ?? [];
  if (port === '') {
    const declared = containers.find((c) => (c.ports ?? []).length > 0)?.ports?.[0]?.containerPort;
    return declared ?? (scheme === 'https' ? 443 : 80);
  }
  if (/^\d+$/.test(port)) {
    const n = Number(port);
    if (n < 1 || n > 65535) throw serviceUnavailable(`error trying to reach service: dial tcp: address ${port}: invalid port`);
    return n;
  }
  for (const c of containers) {
    const named = (c.ports ?? []).find((p) => p.name === port);
    if (named !== undefined) return named.containerPort;
  }
  throw unknownPort(port);
}

/** Where a proxy request for `id` goes in `pod`. */
export function podBackend(pod: Pod, id: ProxyId): ProxyBackend {
  const scheme = id.scheme === '' ? 'http' : id.scheme;
  const ip = pod.status?.podIPs?.[0]?.ip ?? '';
  // Upstream resolves the port after the address check, so a pod without an IP is refused whatever the port.
  if (!isProxyableIP(ip)) throw badRequest(ADDRESS_NOT_ALLOWED);
  return { scheme, host: ip, port: portNumber(pod, id.port, scheme) };
}

export const podProxyHandlers: Record<string, VerbHandler> = newProxyHandlers('pod', async (t, id) =>
  podBackend((await t.store.get(t.namespace, id.name)) as unknown as Pod, id),
);
