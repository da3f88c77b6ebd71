/** `kubectl get endpointslices`: ADDRESSTYPE, PORTS and ENDPOINTS, each up to three then `+ N more...`. */
import type { EndpointPort, EndpointSlice, Endpoint } from 'kubernetes-types/discovery/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { truncatedList } from '../../printing/lists.js';
import { age } from '../../printing/timestamps.js';

/**
 * Port numbers, or the port name when the number is unset. Upstream prints `*`
 * when the name is unset too, but defaulting always sets the name (to ''), so
 * that is what it shows for a stored slice.
 */
function formatPorts(ports: readonly EndpointPort[]): string {
  return truncatedList(ports.map((p) => (p.port !== undefined && p.port !== null ? String(p.port) : (p.name ?? ''))));
}

function formatEndpoints(endpoints: readonly Endpoint[]): string {
  return truncatedList(endpoints.flatMap((e) => e.addresses ?? []));
}

export const endpointSliceTable: TableConvertor<EndpointSlice> = {
  columns: [
    nameColumn(),
    column('AddressType', 'string', 'Kind of address in the slice: IPv4, IPv6 or FQDN.'),
    column('Ports', 'string', 'Ports of the endpoints.'),
    column('Endpoints', 'string', 'Addresses of the endpoints.'),
    ageColumn(),
  ],
  cells(slice, now) {
    return [
      slice.metadata?.name ?? '',
      slice.addressType ?? '',
      formatPorts(slice.ports ?? []),
      formatEndpoints(slice.endpoints ?? []),
      age(slice, now),
    ];
  },
};
