/**
 * The rules in the built-in chains that send packets into ours (upstream's
 * iptablesJumpChains). They are inserted once, at the head of the built-in
 * chain, and never rewritten: the built-in chains belong to everyone.
 */
import { KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_PROXY_FIREWALL, KUBE_SERVICES } from './rule-set.js';

export type Table = 'filter' | 'nat';

export interface JumpRule {
  readonly table: Table;
  /** The built-in chain the rule lives in. */
  readonly chain: string;
  /** The chain of ours it jumps to. */
  readonly target: string;
  readonly comment: string;
  /** Matches before the comment (e.g. conntrack state NEW). */
  readonly matches: string;
}

const NEW = '-m conntrack --ctstate NEW';

export const JUMP_RULES: readonly JumpRule[] = [
  { table: 'filter', chain: 'INPUT', target: KUBE_EXTERNAL_SERVICES, comment: 'kubernetes externally-visible service portals', matches: NEW },
  { table: 'filter', chain: 'FORWARD', target: KUBE_EXTERNAL_SERVICES, comment: 'kubernetes externally-visible service portals', matches: NEW },
  { table: 'filter', chain: 'INPUT', target: KUBE_NODEPORTS, comment: 'kubernetes health check service ports', matches: '' },
  { table: 'filter', chain: 'FORWARD', target: KUBE_SERVICES, comment: 'kubernetes service portals', matches: NEW },
  { table: 'filter', chain: 'OUTPUT', target: KUBE_SERVICES, comment: 'kubernetes service portals', matches: NEW },
  { table: 'filter', chain: 'FORWARD', target: KUBE_FORWARD, comment: 'kubernetes forwarding rules', matches: '' },
  { table: 'filter', chain: 'INPUT', target: KUBE_PROXY_FIREWALL, comment: 'kubernetes load balancer firewall', matches: NEW },
  { table: 'filter', chain: 'OUTPUT', target: KUBE_PROXY_FIREWALL, comment: 'kubernetes load balancer firewall', matches: NEW },
  { table: 'filter', chain: 'FORWARD', target: KUBE_PROXY_FIREWALL, comment: 'kubernetes load balancer firewall', matches: NEW },
  { table: 'nat', chain: 'OUTPUT', target: KUBE_SERVICES, comment: 'kubernetes service portals', matches: '' },
  { table: 'nat', chain: 'PREROUTING', target: KUBE_SERVICES, comment: 'kubernetes service portals', matches: '' },
  { table: 'nat', chain: 'POSTROUTING', target: KUBE_POSTROUTING, comment: 'kubernetes postrouting rules', matches: '' },
];

/** The rule's arguments after `-A CHAIN`/`-I CHAIN`. */
export function jumpRuleSpec(rule: JumpRule): string {
  const matches = rule.matches === '' ? '' : `${rule.matches} `;
  return `${matches}-m comment --comment "${rule.comment}" -j ${rule.target}`;
}
