/** `kubectl get endpoints`: the first three `ip:port` pairs, then `+ N more...`. */
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { NONE } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

const MAX = 3;

/** `host:port`, with IPv6 hosts in brackets (Go's net.JoinHostPort). */
function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Upstream's formatEndpoints over every port (the ready addresses only). */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return NONE;
  const list: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    if (ports.length === 0) {
      // A headless service may have no ports: list bare IPs.
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === MAX) break;
        list.push(a.ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === MAX) break;
        list.push(joinHostPort(a.ip, port.port));
      }
    }
  }
  const joined = list.join(',');
  return count > MAX && list.length === MAX ? `${joined} + ${count - MAX} more...` : joined;
}

export const endpointsTable: TableConvertor<Endpoints> = {
  columns: [nameColumn(), column('Endpoints', 'string', 'Ready addresses and ports behind the service.'), ageColumn()],
  cells(ep, now) {
    return [ep.metadata?.name ?? '', formatEndpoints(ep), age(ep, now)];
  },
};
