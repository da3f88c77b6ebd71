/**
 * Answers one question from the cluster zone, as CoreDNS's kubernetes plugin
 * does for the cluster domain. Pure: the zone is read through {@link ZoneLookup}.
 *
 * - A name with records: those of the asked type (ANY: all). A CNAME answers
 *   every other type and is followed inside the cluster domain.
 *   SRV answers carry the targets' address records in the additional section.
 * - A name that exists without records of the type (or only as a parent of
 *   other names, e.g. `NS.svc.DOMAIN`): NOERROR, no answer, the SOA in the
 *   authority section.
 * - Any other name in the domain: NXDOMAIN with the SOA.
 * - `dns-version.DOMAIN` TXT: the schema version (spec §2.2), and
 *   `A-B-C-D.NS.pod.DOMAIN` the address it spells (spec §2.6; CoreDNS
 *   `pods insecure`, its default in kubeadm's Corefile).
 * - Reverse names (in-addr.arpa, ip6.arpa): answered when the zone has a PTR
 *   for them; otherwise they are not ours (CoreDNS's `fallthrough in-addr.arpa
 *   ip6.arpa`), as is every name outside the domain: `outside`.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Answer, RecordType, SoaAnswer } from 'dns-packet';
import { addressRecord, canonicalName } from './records.js';

/** The version CoreDNS's kubernetes plugin serves in dns-version.DOMAIN. */
export const DNS_SCHEMA_VERSION = '1.1.0';

/** How many CNAMEs inside the domain are followed before giving up. */
const MAX_CNAME_CHAIN = 8;

export interface ZoneLookup {
  /** The records owned by a canonical name. */
  records(name: string): readonly Answer[];
  /** True when some record's owner name is the name or below it. */
  hasDescendants(name: string): boolean;
  /** The SOA serial: changes when the zone does. */
  readonly serial: number;
}

export interface ResolveOptions {
  readonly domain: string;
  readonly ttl: number;
}

export type Resolution =
  | { readonly kind: 'outside' }
  | {
      readonly kind: 'answer';
      readonly rcode: 'NOERROR' | 'NXDOMAIN';
      readonly answers: readonly Answer[];
      readonly authorities: readonly Answer[];
      readonly additionals: readonly Answer[];
    };

const inside = (name: string, domain: string): boolean => name === domain || name.endsWith(`.${domain}`);

export function soaRecord(domain: string, ttl: number, serial: number): SoaAnswer {
  return {
    name: domain,
    type: 'SOA',
    ttl,
    data: { mname: `ns.dns.${domain}`, rname: `hostmaster.${domain}`, serial, refresh: 7200, retry: 1800, expire: 86400, minimum: ttl },
  };
}

/** `A-B-C-D.NS.pod.DOMAIN` (or dashed IPv6) → its address record; undefined when the label spells no address. */
function podRecord(name: string, domain: string, ttl: number): Answer | undefined {
  const labels = name.slice(0, -(domain.length + 1)).split('.');
  if (labels.length !== 3 || labels[2] !== 'pod') return undefined;
  const dotted = labels[0]!.replace(/-/g, '.');
  if (isIPv4(dotted)) return addressRecord(name, dotted, ttl);
  const coloned = labels[0]!.replace(/-/g, ':');
  if (isIPv6(coloned)) return addressRecord(name, coloned, ttl);
  return undefined;
}

/** Names that exist in every cluster zone even when empty. */
function alwaysExists(name: string, domain: string): boolean {
  if (name === domain || name === `svc.${domain}` || name === `pod.${domain}`) return true;
  // NS.pod.DOMAIN: any namespace may hold pod names (pods insecure).
  return /^[^.]+\.pod\./.test(name) && name.split('.').length === domain.split('.').length + 2;
}

function matches(record: Answer, type: RecordType | 'ANY'): boolean {
  return type === 'ANY' || record.type === type;
}

/** The records of `name` for `type`, and the CNAME chain that leads to them. */
function lookup(zone: ZoneLookup, name: string, type: RecordType | 'ANY', domain: string, ttl: number): { answers: Answer[]; found: boolean } {
  const answers: Answer[] = [];
  let current = name;
  for (let hop = 0; hop <= MAX_CNAME_CHAIN; hop++) {
    let records: readonly Answer[] = zone.records(current);
    if (records.length === 0 && inside(current, domain)) {
      const pod = podRecord(current, domain, ttl);
      if (pod !== undefined) records = [pod];
      if (current === `dns-version.${domain}`) records = [{ name: current, type: 'TXT', ttl, data: DNS_SCHEMA_VERSION }];
    }
    if (records.length === 0) return { answers, found: hop > 0 || zone.hasDescendants(current) || alwaysExists(current, domain) };
    const cname = records.find((r) => r.type === 'CNAME');
    if (cname === undefined || type === 'CNAME' || type === 'ANY') {
      answers.push(...records.filter((r) => matches(r, type)));
      return { answers, found: true };
    }
    answers.push(cname);
    current = cname.type === 'CNAME' ? cname.data : '';
    if (!inside(current, domain)) return { answers, found: true };
  }
  return { answers, found: true };
}

/** The address records of the SRV targets that the zone holds. */
function srvAdditionals(zone: ZoneLookup, answers: readonly Answer[]): Answer[] {
  const out: Answer[] = [];
  const done = new Set<string>();
  for (const answer of answers) {
    if (answer.type !== 'SRV' || done.has(answer.data.target)) continue;
    done.add(answer.data.target);
    out.push(...zone.records(answer.data.target).filter((r) => r.type === 'A' || r.type === 'AAAA'));
  }
  return out;
}

export function resolveQuestion(question: { readonly name: string; readonly type: RecordType | 'ANY' }, zone: ZoneLookup, options: ResolveOptions): Resolution {
  const domain = canonicalName(options.domain);
  const name = canonicalName(question.name);
  const isReverse = name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa');
  if (isReverse) {
    const records = zone.records(name);
    if (records.length === 0) return { kind: 'outside' };
    return { kind: 'answer', rcode: 'NOERROR', answers: records.filter((r) => matches(r, question.type)), authorities: [], additionals: [] };
  }
  if (!inside(name, domain)) return { kind: 'outside' };
  const soa = soaRecord(domain, options.ttl, zone.serial);
  if (question.type === 'SOA' && name === domain) return { kind: 'answer', rcode: 'NOERROR', answers: [soa], authorities: [], additionals: [] };
  const { answers, found } = lookup(zone, name, question.type, domain, options.ttl);
  // Answers keep the case the client asked in for the owner of the first record (0x20 case randomisation).
  const owned = answers.map((a) => (a.name === name ? { ...a, name: question.name.replace(/\.+$/, '') } : a));
  if (!found) return { kind: 'answer', rcode: 'NXDOMAIN', answers: [], authorities: [soa], additionals: [] };
  if (owned.length === 0) return { kind: 'answer', rcode: 'NOERROR', answers: [], authorities: [soa], additionals: [] };
  const additionals = question.type === 'SRV' ? srvAdditionals(zone, answers) : [];
  return { kind: 'answer', rcode: 'NOERROR', answers: owned, authorities: [], additionals };
}
