/**
 * The docker-link style variables a container gets for the services of its
 * namespace, as upstream's kubelet makes them (pkg/kubelet/envvars
 * FromServices, and getServiceEnvVarMap for which services count):
 *
 * - only services with a cluster IP (not "" and not "None");
 * - the `kubernetes` service of namespace `default` always, even with
 *   enableServiceLinks false (in-cluster clients read KUBERNETES_SERVICE_HOST);
 *   a service of that name in the pod's own namespace wins over it;
 * - the pod's namespace's other services only when enableServiceLinks is on.
 *
 * For a service `my-db` with clusterIP 10.0.0.5 and ports [{name: pg, port:
 * 5432}]: MY_DB_SERVICE_HOST=10.0.0.5, MY_DB_SERVICE_PORT=5432,
 * MY_DB_SERVICE_PORT_PG=5432, MY_DB_PORT=tcp://10.0.0.5:5432,
 * MY_DB_PORT_5432_TCP=tcp://10.0.0.5:5432, MY_DB_PORT_5432_TCP_PROTO=tcp,
 * MY_DB_PORT_5432_TCP_PORT=5432, MY_DB_PORT_5432_TCP_ADDR=10.0.0.5.
 */
import type { Service } from '../types.js';

const MASTER_SERVICES = new Set(['kubernetes']);

/** String.prototype.localeCompare's order, with one collator made once (localeCompare makes one on every call). */
const byLocale = new Intl.Collator().compare;

export function isServiceIPSet(service: Service): boolean {
  const ip = service.spec?.clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

/** The services whose variables a pod of `namespace` sees, by name. */
export function servicesForPod(options: {
  readonly namespace: string;
  readonly enableServiceLinks: boolean;
  /** The services of the pod's namespace (may be empty when links are off). */
  readonly own: readonly Service[];
  /** The services of namespace `default`. */
  readonly defaults: readonly Service[];
}): Service[] {
  const byName = new Map<string, Service>();
  for (const service of options.defaults) {
    const name = service.metadata.name ?? '';
    if (isServiceIPSet(service) && MASTER_SERVICES.has(name) && service.metadata.namespace === 'default') byName.set(name, service);
  }
  if (options.enableServiceLinks && options.namespace !== 'default') {
    for (const service of options.own) {
      if (isServiceIPSet(service) && service.metadata.namespace === options.namespace) byName.set(service.metadata.name ?? '', service);
    }
  } else if (options.enableServiceLinks) {
    for (const service of options.defaults) {
      if (isServiceIPSet(service) && service.metadata.namespace === 'default') byName.set(service.metadata.name ?? '', service);
    }
  }
  return [...byName.values()].sort((a, b) => byLocale(a.metadata.name ?? '', b.metadata.name ?? ''));
}

/** `my-db` → `MY_DB`. */
export const envVariableName = (name: string): string => name.replaceAll('-', '_').toUpperCase();

/** `host:port`, with an IPv6 host in brackets (Go's net.JoinHostPort). */
const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The variables of the services, in order (upstream's envvars.FromServices). */
export function serviceEnvVars(services: readonly Service[]): [string, string][] {
  const out: [string, string][] = [];
  for (const service of services) {
    if (!isServiceIPSet(service)) continue;
    const ports = service.spec?.ports ?? [];
    const ip = service.spec?.clusterIP ?? '';
    const prefix = envVariableName(service.metadata.name ?? '');
    out.push([`${prefix}_SERVICE_HOST`, ip]);
    const first = ports[0];
    if (first === undefined) continue;
    out.push([`${prefix}_SERVICE_PORT`, String(first.port)]);
    for (const port of ports) {
      if (port.name !== undefined && port.name !== '') out.push([`${prefix}_SERVICE_PORT_${envVariableName(port.name)}`, String(port.port)]);
    }
    ports.forEach((port, i) => {
      const protocol = port.protocol === undefined || port.protocol === '' ? 'TCP' : port.protocol;
      const url = `${protocol.toLowerCase()}://${joinHostPort(ip, port.port)}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
      out.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(port.port)], [`${portPrefix}_ADDR`, ip]);
    });
  }
  return out;
}
