/**
 * The stages of a pod's journey, as watches show them: created (the pod
 * exists, with no node) → scheduled (spec.nodeName set by the binding) →
 * running (phase Running) → ready (condition Ready=True) → in endpoints (a
 * ready endpoint of its Service's EndpointSlices names it). Fed with the
 * events of `kubectl get pods -w` and `kubectl get endpointslices -w`
 * (kubectl-watch.ts), it records when each pod first reached each stage, and
 * in which event order, so that a test can check the order and a bench can
 * report the time each step took: created→scheduled is the control plane
 * (controllers and scheduler), scheduled→running and running→ready the node
 * (kubelet, runtime, probes), ready→in endpoints the endpoint slice controller.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { ObservedEvent } from './kubectl-watch.js';

export const STAGES = ['created', 'scheduled', 'running', 'ready', 'endpoints'] as const;
export type Stage = (typeof STAGES)[number];

/** When a pod first reached a stage: the watch event's arrival time and its sequence number across both watches. */
export interface StageMark {
  readonly at: number;
  readonly seq: number;
}

export type PodStages = Partial<Record<Stage, StageMark>> & { readonly node?: string };

export interface StageDurations {
  /** created→scheduled, scheduled→running, running→ready, ready→in endpoints (ms), named after the later stage. */
  readonly scheduled: number;
  readonly running: number;
  readonly ready: number;
  readonly endpoints: number;
}

const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

export class StageTracker {
  private seq = 0;
  private readonly pods = new Map<string, PodStages & { node?: string }>();

  /** @param origin the instant the journey began (just before `kubectl apply`), for times relative to it. */
  constructor(readonly origin: number) {}

  /** Feed every event of the pod watch. */
  onPod(event: ObservedEvent<Pod>): void {
    const seq = this.seq++;
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
    const pod = event.object;
    const name = pod.metadata?.name;
    if (name === undefined) return;
    const stages = this.pods.get(name) ?? {};
    const mark = (stage: Stage): void => {
      if (stages[stage] === undefined) stages[stage] = { at: event.at, seq };
    };
    mark('created');
    if (pod.spec?.nodeName) {
      mark('scheduled');
      stages.node = pod.spec.nodeName;
    }
    if (pod.status?.phase === 'Running') mark('running');
    if (isReady(pod)) mark('ready');
    this.pods.set(name, stages);
  }

  /** Feed every event of the EndpointSlice watch (of the Service's slices only). */
  onEndpointSlice(event: ObservedEvent<EndpointSlice>): void {
    const seq = this.seq++;
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
    for (const endpoint of event.object.endpoints ?? []) {
      const name = endpoint.targetRef?.kind === 'Pod' ? endpoint.targetRef.name : undefined;
      if (name === undefined || endpoint.conditions?.ready !== true) continue;
      const stages = this.pods.get(name) ?? {};
      if (stages.endpoints === undefined) stages.endpoints = { at: event.at, seq };
      this.pods.set(name, stages);
    }
  }

  /** Pod name → its stages. */
  stages(): ReadonlyMap<string, PodStages> {
    return this.pods;
  }

  /** The pods that reached `stage`. */
  reached(stage: Stage): string[] {
    return [...this.pods].filter(([, s]) => s[stage] !== undefined).map(([name]) => name);
  }

  /** The stages a pod reached out of order (a later stage seen in an earlier event than an earlier stage), e.g. ['ready before running']. */
  outOfOrder(name: string): string[] {
    const s = this.pods.get(name) ?? {};
    const problems: string[] = [];
    for (let i = 1; i < STAGES.length; i++) {
      const earlier = s[STAGES[i - 1]!];
      const later = s[STAGES[i]!];
      if (later === undefined) continue;
      if (earlier === undefined) problems.push(`${STAGES[i]} without ${STAGES[i - 1]}`);
      else if (later.seq < earlier.seq) problems.push(`${STAGES[i]} before ${STAGES[i - 1]}`);
    }
    return problems;
  }

  /** Each step's duration for a pod that reached every stage. */
  durations(name: string): StageDurations | undefined {
    const s = this.pods.get(name);
    if (s === undefined || STAGES.some((stage) => s[stage] === undefined)) return undefined;
    return {
      scheduled: s.scheduled!.at - s.created!.at,
      running: s.running!.at - s.scheduled!.at,
      ready: s.ready!.at - s.running!.at,
      endpoints: s.endpoints!.at - s.ready!.at,
    };
  }

  /** When the last of `names` reached `stage`, relative to the origin (undefined while one has not). */
  allReached(names: readonly string[], stage: Stage): number | undefined {
    let last = 0;
    for (const name of names) {
      const mark = this.pods.get(name)?.[stage];
      if (mark === undefined) return undefined;
      last = Math.max(last, mark.at - this.origin);
    }
    return last;
  }

  /** One line per pod: its node and the time of each stage since the origin, then each step's duration. */
  report(names: readonly string[] = [...this.pods.keys()]): string {
    const lines = [`${'pod'.padEnd(28)} ${'node'.padEnd(16)} ${STAGES.map((s) => s.padStart(9)).join(' ')}   steps (created→scheduled→running→ready→endpoints)`];
    for (const name of [...names].sort()) {
      const s = this.pods.get(name) ?? {};
      const times = STAGES.map((stage) => (s[stage] === undefined ? '-' : `${s[stage]!.at - this.origin}ms`).padStart(9)).join(' ');
      const d = this.durations(name);
      const steps = d === undefined ? '' : `   ${d.scheduled} / ${d.running} / ${d.ready} / ${d.endpoints} ms`;
      lines.push(`${name.padEnd(28)} ${(s.node ?? '-').padEnd(16)} ${times}${steps}`);
    }
    return lines.join('\n');
  }
}

/** The p-th percentile (0–100), nearest rank; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** p50 and p99 of each step over the pods that reached every stage, in ms. */
export function stepPercentiles(tracker: StageTracker, names: readonly string[]): Record<`${keyof StageDurations}_p${50 | 99}`, number> {
  const all = names.map((n) => tracker.durations(n)).filter((d): d is StageDurations => d !== undefined);
  const of = (step: keyof StageDurations, p: number): number => percentile(all.map((d) => d[step]), p);
  return {
    scheduled_p50: of('scheduled', 50),
    scheduled_p99: of('scheduled', 99),
    running_p50: of('running', 50),
    running_p99: of('running', 99),
    ready_p50: of('ready', 50),
    ready_p99: of('ready', 99),
    endpoints_p50: of('endpoints', 50),
    endpoints_p99: of('endpoints', 99),
  };
}
