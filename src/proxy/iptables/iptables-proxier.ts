/**
 * The kube-proxy's iptables mode (--proxy-mode iptables): a Proxier that
 * turns each ProxyState into upstream's chain layout (rule-set.ts) and writes
 * it with one `iptables-restore --noflush` per sync, so that every change is
 * atomic and other programs' rules are left alone.
 *
 * The first sync of a proxier reads the tables (iptables-save), rewrites every
 * chain of ours, deletes per-Service chains that no longer belong to any
 * Service (a restarted proxy cleans up after its predecessor) and inserts the
 * jump rules from the built-in chains that are missing. Later syncs write only
 * the chains that changed, and nothing when nothing did; once an hour
 * (fullSyncIntervalMs) a sync is full again. A failed restore rejects with
 * iptables' own message and makes the next sync a full one.
 */
import type { Proxier, ProxyState, SyncResult } from '../interface.js';
import { isServiceChainName } from './chain-names.js';
import { newCommandRunner, type CommandResult, type CommandRunner } from './command-runner.js';
import { hasJumpRule, parseIptablesSave, ruleChain, ruleTarget, type SavedTables } from './iptables-save.js';
import { JUMP_RULES, jumpRuleSpec, type Table } from './jump-rules.js';
import { restoreText, TABLES } from './restore-text.js';
import { FILTER_TOP_CHAINS, generateRuleSet, NAT_TOP_CHAINS, type RuleSet, type RuleSetOptions } from './rule-set.js';

export interface IptablesProxierOptions extends RuleSetOptions {
  /** Run iptables in this network namespace (`ip netns add NAME`); absent: the current one. */
  readonly netns?: string;
  /** Default `iptables-restore` (the system's backend; `iptables-legacy-restore` or `iptables-nft-restore` to choose). */
  readonly restoreCommand?: string;
  /** Default `iptables-save`, of the same backend as restoreCommand. */
  readonly saveCommand?: string;
  /** Seconds iptables waits for the xtables lock (legacy backend). Default 5. */
  readonly lockWaitSeconds?: number;
  /** Runs the commands (tests inject failures); default: execFile-style spawn, no shell. */
  readonly runner?: CommandRunner;
  /**
   * A sync this long after the last full one is full again (re-reads the
   * tables, rewrites every chain, restores jump rules someone deleted), as
   * upstream's FullSyncPeriod. Default one hour.
   */
  readonly fullSyncIntervalMs?: number;
  /** Clock for fullSyncIntervalMs (tests). Default Date.now. */
  readonly now?: () => number;
}

export interface IptablesSyncResult extends SyncResult {
  /** Whether iptables-restore ran (false: the rule set was already in place). */
  readonly applied: boolean;
  /** Whether every chain was written (first sync, or after a failure). */
  readonly fullSync: boolean;
  readonly chainsWritten: number;
  readonly chainsDeleted: number;
  /** Time to generate the rule set and the restore input. */
  readonly generateMs: number;
  /** Time spent in iptables-save and iptables-restore. */
  readonly iptablesMs: number;
  readonly totalMs: number;
}

export interface IptablesProxier extends Proxier {
  sync(state: ProxyState): Promise<IptablesSyncResult>;
}

/** The first line of stderr, and the input line iptables-restore names, if it names one. */
export function describeRestoreFailure(command: string, result: CommandResult, input: string): string {
  const stderr = result.stderr.trim();
  const first = stderr.split('\n').find((l) => l.trim() !== '') ?? `no output`;
  const lineNumber = /line:? (\d+)/.exec(stderr)?.[1];
  const inputLine = lineNumber === undefined ? undefined : input.split('\n')[Number(lineNumber) - 1];
  const at = inputLine === undefined ? '' : ` (input line ${lineNumber}: ${inputLine})`;
  return `${command} failed with exit code ${result.code}: ${first.trim()}${at}`;
}

/** Our chains in a saved table, and the rules of other chains that jump into them. */
function ourChains(table: Table, saved: SavedTables): { chains: string[]; jumps: string[] } {
  const t = saved.get(table);
  if (t === undefined) return { chains: [], jumps: [] };
  const top: readonly string[] = table === 'nat' ? NAT_TOP_CHAINS : FILTER_TOP_CHAINS;
  const ours = (c: string): boolean => top.includes(c) || (table === 'nat' && isServiceChainName(c));
  const chains = [...t.chains].filter(ours);
  const jumps = t.rules.filter((r) => !ours(ruleChain(r)) && ours(ruleTarget(r) ?? ''));
  return { chains, jumps };
}

export function newIptablesProxier(options: IptablesProxierOptions = {}): IptablesProxier {
  const run = options.runner ?? newCommandRunner(options.netns === undefined ? {} : { netns: options.netns });
  const restoreCommand = options.restoreCommand ?? 'iptables-restore';
  const saveCommand = options.saveCommand ?? 'iptables-save';
  const wait = `--wait=${options.lockWaitSeconds ?? 5}`;
  const fullSyncIntervalMs = options.fullSyncIntervalMs ?? 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  let applied: RuleSet | undefined;
  let lastFullSync = 0;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();

  const save = async (): Promise<SavedTables> => {
    const result = await run({ file: saveCommand, args: [] });
    if (result.code !== 0) throw new Error(`${saveCommand} failed with exit code ${result.code}: ${result.stderr.trim() || 'no output'}`);
    return parseIptablesSave(result.stdout);
  };

  const restore = async (input: string): Promise<void> => {
    const result = await run({ file: restoreCommand, args: [wait, '--noflush'], stdin: input });
    if (result.code !== 0) throw new Error(describeRestoreFailure(restoreCommand, result, input));
  };

  const doSync = async (state: ProxyState): Promise<IptablesSyncResult> => {
    const start = performance.now();
    const ruleSet = generateRuleSet(state, options);
    if (now() - lastFullSync >= fullSyncIntervalMs) applied = undefined;
    const fullSync = applied === undefined;
    let iptablesMs = 0;
    let input: string;
    if (applied === undefined) {
      const t = performance.now();
      const saved = await save();
      iptablesMs += performance.now() - t;
      const nat = saved.get('nat');
      const staleNat = nat === undefined ? [] : [...nat.chains].filter((c) => isServiceChainName(c) && !ruleSet.nat.has(c));
      const extraLines: Record<Table, string[]> = { filter: [], nat: [] };
      for (const jump of JUMP_RULES) {
        if (!hasJumpRule(saved.get(jump.table), jump)) extraLines[jump.table].push(`-I ${jump.chain} ${jumpRuleSpec(jump)}`);
      }
      input = restoreText(ruleSet, { staleChains: { nat: staleNat }, extraLines });
    } else {
      input = restoreText(ruleSet, { previous: applied });
    }
    const generateMs = performance.now() - start - iptablesMs;
    let chainsWritten = 0;
    let chainsDeleted = 0;
    for (const line of input.split('\n')) {
      if (line.startsWith(':')) chainsWritten++;
      else if (line.startsWith('-X ')) chainsDeleted++;
    }
    if (input !== '') {
      const t = performance.now();
      try {
        await restore(input);
      } catch (err) {
        applied = undefined; // the tables are in an unknown state: the next sync writes everything
        throw err;
      }
      iptablesMs += performance.now() - t;
    }
    applied = ruleSet;
    if (fullSync) lastFullSync = now();
    return {
      servicePorts: ruleSet.servicePorts,
      endpoints: ruleSet.endpoints,
      problems: ruleSet.problems,
      applied: input !== '',
      fullSync,
      chainsWritten: chainsWritten - chainsDeleted,
      chainsDeleted,
      generateMs,
      iptablesMs,
      totalMs: performance.now() - start,
    };
  };

  const doClose = async (): Promise<void> => {
    const saved = await save();
    const lines: string[] = [];
    for (const table of TABLES) {
      const { chains, jumps } = ourChains(table, saved);
      if (chains.length === 0 && jumps.length === 0) continue;
      lines.push(`*${table}`);
      for (const c of chains) lines.push(`:${c} - [0:0]`);
      for (const j of jumps) lines.push(`-D ${j.slice(3)}`);
      for (const c of chains) lines.push(`-X ${c}`);
      lines.push('COMMIT');
    }
    applied = undefined;
    if (lines.length > 0) await restore(`${lines.join('\n')}\n`);
  };

  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    mode: 'iptables',
    sync: (state) => (closed ? Promise.reject(new Error('the iptables proxier is closed')) : enqueue(() => doSync(state))),
    close: () => {
      if (closed) return enqueue(async () => undefined);
      closed = true;
      return enqueue(doClose);
    },
  };
}
