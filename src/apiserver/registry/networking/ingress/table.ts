/**
 * `kubectl get ingresses`: CLASS (`<none>` without spec.ingressClassName),
 * HOSTS (`*` when no rule names one; at most three, then `+ N more...`),
 * ADDRESS (the load balancer's IPs, else hostnames, sorted and de-duplicated),
 * PORTS (`80`, or `80, 443` when the Ingress has TLS), as upstream's printIngress.
 * The server prints wide, so ADDRESS is never clipped here.
 */
import type { Ingress, IngressRule } from 'kubernetes-types/networking/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { sortedUnique } from '../../printing/lists.js';
import { NONE } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

const MAX_HOSTS = 3;

/** Hosts of the first rules; the count after `+` is of all further rules, named or not, as upstream counts them. */
function hosts(rules: readonly IngressRule[]): string {
  const names: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (names.length === MAX_HOSTS) more = true;
    if (!more && (rule.host ?? '') !== '') names.push(rule.host ?? '');
  }
  if (names.length === 0) return '*';
  return more ? `${names.join(',')} + ${rules.length - MAX_HOSTS} more...` : names.join(',');
}

export const ingressTable: TableConvertor<Ingress> = {
  columns: [
    nameColumn(),
    column('Class', 'string', 'The IngressClass this Ingress asks for.'),
    column('Hosts', 'string', 'Hosts the rules of this Ingress match.'),
    column('Address', 'string', 'Addresses of the load balancer serving this Ingress.'),
    column('Ports', 'string', 'Ports the Ingress is served on (443 when it has TLS).'),
    ageColumn(),
  ],
  cells(ing, now) {
    const addresses = (ing.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter((a) => a !== '');
    return [
      ing.metadata?.name ?? '',
      ing.spec?.ingressClassName ?? NONE,
      hosts(ing.spec?.rules ?? []),
      sortedUnique(addresses).join(','),
      (ing.spec?.tls ?? []).length > 0 ? '80, 443' : '80',
      age(ing, now),
    ];
  },
};
