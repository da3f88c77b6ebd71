/**
 * One worker per (container, probe kind), as upstream's worker.go: it looks
 * at the container before every probe (never probing one that is not
 * running), waits out initialDelaySeconds from the container's start, probes
 * every periodSeconds, and reports a result only once it has repeated
 * successThreshold/failureThreshold times in a row. Liveness and readiness
 * wait while the startup probe has not succeeded; the startup worker stops
 * probing once it has. After a liveness or startup failure the worker holds
 * (the container is about to be killed; a new container gets new workers).
 */
import type { Probe } from 'kubernetes-types/core/v1.js';
import { isRuntimeNotFound, type RuntimeService } from '../runtime/interface.js';
import type { ProbeKind } from './interface.js';
import type { ProbeMetrics, ProbeSeries } from './probe-metrics.js';
import type { ProbeTiming } from './probe-timing.js';
import { PROBE_KIND_NAMES, type Prober, type ProbeTarget } from './prober.js';

/** What a worker reports to the record of its container. */
export interface ProbeWorkerHost {
  /** The startup probe has succeeded (or there is none): liveness and readiness may probe. */
  isStarted(): boolean;
  /** The container exited or is gone: every worker of it stops and its results go false. */
  containerNotRunning(): void;
  /** What the runtime says of a container that has not exited: running (true), or in an unknown state (false: neither ready nor started until it runs again). */
  containerSeen(running: boolean): void;
  /** A result reached its threshold (the manager turns it into readiness, started, or a kill). */
  setResult(kind: ProbeKind, result: 'success' | 'failure'): void;
}

export interface ProbeWorkerOptions {
  readonly kind: ProbeKind;
  readonly probe: Probe;
  readonly timing: ProbeTiming;
  /**
   * When the pod's probe clock started (ms since the epoch, see
   * ProbeManager.addPod): the worker probes at whole periods from it, as
   * upstream's worker ticks from when the pod was added, whatever the
   * moment its container started.
   */
  readonly clockMs: number;
  readonly target: ProbeTarget;
  readonly runtime: RuntimeService;
  readonly prober: Prober;
  readonly metrics: ProbeMetrics;
  readonly host: ProbeWorkerHost;
}

/** `next` says when to look again (ms from now); `stop` ends the worker's loop. */
type Step = { readonly next: number } | 'stop';

export class ProbeWorker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The loop ended by itself (startup done, held after a kill): a trigger does not restart it. */
  private halted = false;
  private inFlight = false;
  private triggered = false;
  private lastResult: 'success' | 'failure' | undefined;
  private resultRun = 0;
  private readonly series: ProbeSeries;

  constructor(private readonly options: ProbeWorkerOptions) {
    const { pod, container } = options.target;
    this.series = {
      probeType: PROBE_KIND_NAMES[options.kind],
      container: container.name,
      pod: pod.metadata.name ?? '',
      namespace: pod.metadata.namespace ?? '',
      podUid: pod.metadata.uid ?? '',
    };
  }

  get kind(): ProbeKind {
    return this.options.kind;
  }

  /**
   * Looks at the container at the pod's first probe tick at or after `from`,
   * then every period. `from` is when the caller learnt of the container: a
   * clock started at that same instant ticks at once, however long the
   * workers took to be made since.
   */
  start(from: number = Date.now()): void {
    this.schedule(this.firstTickFrom(from) - Date.now());
  }

  /** The first tick of the pod's probe clock at or after `at`. */
  private firstTickFrom(at: number): number {
    const { clockMs, timing } = this.options;
    return clockMs + Math.max(0, Math.ceil((at - clockMs) / timing.periodMs)) * timing.periodMs;
  }

  /**
   * The first tick after a look that began at `began`. After a probe that ran
   * past one or more ticks the next look comes at once and the other missed
   * ticks are dropped (Go's ticker keeps one tick for a slow reader and drops
   * the rest); a look triggered between ticks leaves the next tick in place.
   */
  private tickAfter(began: number): number {
    const { clockMs, timing } = this.options;
    // A timer may fire a millisecond or so before its tick: that look is the tick's own.
    const early = Math.min(5, timing.periodMs / 4);
    return clockMs + (Math.max(0, Math.floor((began + early - clockMs) / timing.periodMs)) + 1) * timing.periodMs;
  }

  /** Probe now instead of at the next period (upstream's manual trigger; the startup probe has just succeeded). */
  trigger(): void {
    if (this.stopped || this.halted) return;
    if (this.inFlight) {
      this.triggered = true;
      return;
    }
    this.schedule(0);
  }

  /** Idempotent; a probe under way finishes but its result is dropped. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.options.metrics.forget(this.series);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), Math.max(0, delayMs));
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (this.stopped || this.inFlight) return;
    this.inFlight = true;
    this.triggered = false;
    let step: Step;
    try {
      step = await this.step();
    } catch {
      // A bug in a handler must not end the worker (upstream recovers from panics and keeps going).
      step = { next: this.options.timing.periodMs };
    } finally {
      this.inFlight = false;
    }
    if (step === 'stop') {
      this.halted = true;
      return;
    }
    if (this.stopped) return;
    this.schedule(this.triggered ? 0 : step.next);
  }

  private async step(): Promise<Step> {
    const { kind, timing, runtime, target, host } = this.options;
    const began = Date.now();
    const period = (): Step => ({ next: this.tickAfter(began) - Date.now() });

    let startedAtMs: number;
    try {
      const status = await runtime.containerStatus(target.containerId);
      if (this.stopped) return 'stop';
      if (status.state === 'CONTAINER_CREATED') return period();
      if (status.state === 'CONTAINER_EXITED') {
        host.containerNotRunning();
        return 'stop';
      }
      host.containerSeen(status.state === 'CONTAINER_RUNNING');
      if (status.state !== 'CONTAINER_RUNNING') return period();
      startedAtMs = Number(status.startedAt / 1_000_000n);
    } catch (e: unknown) {
      if (this.stopped) return 'stop';
      if (isRuntimeNotFound(e)) {
        host.containerNotRunning();
        return 'stop';
      }
      return period(); // the runtime did not answer: look again later
    }

    const sinceStart = Date.now() - startedAtMs;
    // Upstream skips the ticks before initialDelaySeconds has passed: the first probe is at the tick after it.
    if (sinceStart < timing.initialDelayMs) return { next: this.firstTickFrom(startedAtMs + timing.initialDelayMs) - Date.now() };

    const started = host.isStarted();
    if (kind === 'startup' && started) return 'stop';
    if (kind !== 'startup' && !started) return period();

    const result = await this.options.prober.probe(kind, this.options.probe, target, timing.timeoutMs);
    this.options.metrics.observe(this.series, result, (Date.now() - began) / 1000);
    if (this.stopped) return 'stop';
    if (result === 'unknown') return period();

    if (this.lastResult === result) this.resultRun++;
    else {
      this.lastResult = result;
      this.resultRun = 1;
    }
    const threshold = result === 'failure' ? timing.failureThreshold : timing.successThreshold;
    if (this.resultRun < threshold) return period();

    host.setResult(kind, result);
    if (result === 'failure' && kind !== 'readiness') return 'stop'; // hold until the container is replaced
    return period();
  }
}
