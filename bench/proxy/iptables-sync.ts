/**
 * How long the iptables proxier takes to program 1,000 Services with 10,000
 * endpoints (issue 9: upstream's design target at that size was a few
 * seconds; ours is under 1 s for a change), inside a network namespace of its
 * own that it deletes afterwards:
 *
 * - full: the first sync of a proxier (reads the empty tables, writes every chain);
 * - one change: one endpoint of one Service replaced (rewrites that Service's
 *   KUBE-SVC chain, adds one KUBE-SEP chain and deletes another), the median of
 *   several;
 * - restart: a new proxier's first sync over the tables its predecessor left
 *   (iptables-save of ~40,000 rules, then every chain rewritten).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Endpoint, ProxyState, ServicePort } from '../../src/proxy/interface.js';
import { servicePortKey } from '../../src/proxy/interface.js';
import { newIptablesProxier } from '../../src/proxy/iptables/iptables-proxier.js';
import { percentile } from '../common/stats.js';

const exec = promisify(execFile);

export interface IptablesSyncBenchOptions {
  readonly services?: number;
  readonly endpointsPerService?: number;
  /** How many single-endpoint changes to time (the median is reported). */
  readonly changes?: number;
}

export interface IptablesSyncBenchResult {
  readonly rules_sync_ms_1000_services: number;
  readonly rules_sync_ms_1000_services_one_change: number;
  readonly rules_sync_ms_1000_services_restart: number;
  readonly rules_sync_nat_rules_1000_services: number;
}

function endpointIP(n: number): string {
  return `10.${128 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;
}

function buildState(services: number, perService: number, replaced: ReadonlyMap<number, number> = new Map()): ProxyState {
  const svcs = new Map<string, ServicePort>();
  const eps = new Map<string, Endpoint[]>();
  for (let s = 0; s < services; s++) {
    const name = { namespace: `bench-${s % 20}`, name: `svc-${s}`, port: 'http', protocol: 'TCP' as const };
    const key = servicePortKey(name);
    svcs.set(key, {
      key,
      name,
      type: s % 10 === 0 ? 'NodePort' : 'ClusterIP',
      clusterIPs: [`10.96.${(s >> 8) & 255}.${s & 255}`],
      port: 80,
      ...(s % 10 === 0 ? { nodePort: 30000 + s } : {}),
      externalIPs: [],
      loadBalancerIPs: [],
      internalTrafficPolicyLocal: false,
      externalTrafficPolicyLocal: false,
    });
    const list: Endpoint[] = [];
    for (let e = 0; e < perService; e++) {
      const n = s * perService + e;
      list.push({ ip: endpointIP(replaced.get(n) ?? n), port: 8080, ready: true, serving: true, terminating: false, isLocal: false });
    }
    eps.set(key, list);
  }
  return { services: svcs, endpoints: eps, sliceVersions: new Map() };
}

export async function benchIptablesSync(options: IptablesSyncBenchOptions = {}): Promise<IptablesSyncBenchResult> {
  const services = options.services ?? 1000;
  const perService = options.endpointsPerService ?? 10;
  const changes = options.changes ?? 7;
  const netns = `k8ts-bench-${randomBytes(3).toString('hex')}`;
  await exec('ip', ['netns', 'add', netns]);
  try {
    const proxier = newIptablesProxier({ netns, clusterCIDR: '10.128.0.0/10' });
    const full = await proxier.sync(buildState(services, perService));
    if (!full.fullSync || full.endpoints !== services * perService) throw new Error(`unexpected first sync: ${JSON.stringify(full)}`);

    const changeTimes: number[] = [];
    const replaced = new Map<number, number>();
    for (let i = 0; i < changes; i++) {
      // Endpoint n of service s gets a fresh address, as when a pod is replaced.
      const n = ((i * 131) % services) * perService + (i % perService);
      replaced.set(n, services * perService + i);
      const result = await proxier.sync(buildState(services, perService, replaced));
      if (!result.applied || result.fullSync) throw new Error(`unexpected change sync: ${JSON.stringify(result)}`);
      changeTimes.push(result.totalMs);
    }

    const restarted = newIptablesProxier({ netns, clusterCIDR: '10.128.0.0/10' });
    const restart = await restarted.sync(buildState(services, perService, replaced));
    const { stdout } = await exec('nsenter', [`--net=/run/netns/${netns}`, '--', 'iptables-save', '-t', 'nat'], { maxBuffer: 256 * 2 ** 20 });
    const natRules = stdout.split('\n').filter((l) => l.startsWith('-A ')).length;
    return {
      rules_sync_ms_1000_services: full.totalMs,
      rules_sync_ms_1000_services_one_change: percentile(changeTimes, 50),
      rules_sync_ms_1000_services_restart: restart.totalMs,
      rules_sync_nat_rules_1000_services: natRules,
    };
  } finally {
    await exec('ip', ['netns', 'del', netns]).catch(() => undefined);
  }
}
