/**
 * Reads `iptables-save` output: per table, the chains that exist and every
 * rule (as `-A CHAIN …` lines, in iptables' normalised spelling).
 */
import type { JumpRule } from './jump-rules.js';

export interface SavedTable {
  readonly chains: ReadonlySet<string>;
  readonly rules: readonly string[];
}

export type SavedTables = ReadonlyMap<string, SavedTable>;

export function parseIptablesSave(text: string): SavedTables {
  const tables = new Map<string, { chains: Set<string>; rules: string[] }>();
  let current: { chains: Set<string>; rules: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) {
      current = { chains: new Set(), rules: [] };
      tables.set(line.slice(1).trim(), current);
    } else if (current === undefined || line.startsWith('#') || line === 'COMMIT') {
      continue;
    } else if (line.startsWith(':')) {
      const name = line.slice(1).split(' ')[0];
      if (name) current.chains.add(name);
    } else if (line.startsWith('-A ')) {
      current.rules.push(line);
    }
  }
  return tables;
}

/** The chain a `-A CHAIN …` line appends to. */
export function ruleChain(rule: string): string {
  const end = rule.indexOf(' ', 3);
  return end === -1 ? rule.slice(3) : rule.slice(3, end);
}

/** The `-j TARGET` of a rule, if any. */
export function ruleTarget(rule: string): string | undefined {
  const m = / -j (\S+)/.exec(rule);
  return m?.[1];
}

/** Whether `table` already holds `jump` (same built-in chain, target and comment). */
export function hasJumpRule(table: SavedTable | undefined, jump: JumpRule): boolean {
  if (table === undefined) return false;
  const comment = jump.comment.includes(' ') ? `--comment "${jump.comment}"` : `--comment ${jump.comment}`;
  return table.rules.some((r) => ruleChain(r) === jump.chain && ruleTarget(r) === jump.target && r.includes(comment));
}
