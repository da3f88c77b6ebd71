/**
 * A probe's timing fields with upstream's defaults (the API server defaults
 * them too, but a static pod's manifest may leave them out): periodSeconds
 * 10, timeoutSeconds 1, successThreshold 1, failureThreshold 3,
 * initialDelaySeconds 0. successThreshold is always 1 for liveness and
 * startup probes (validation allows nothing else). `secondMs` scales a
 * second (k8ts only, for tests; 1000 in production).
 */
import type { Probe } from 'kubernetes-types/core/v1.js';
import type { ProbeKind } from './interface.js';

export const DEFAULT_PERIOD_SECONDS = 10;
export const DEFAULT_TIMEOUT_SECONDS = 1;
export const DEFAULT_SUCCESS_THRESHOLD = 1;
export const DEFAULT_FAILURE_THRESHOLD = 3;

export interface ProbeTiming {
  readonly initialDelayMs: number;
  readonly periodMs: number;
  readonly timeoutMs: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
}

/** A positive integer field, or its default when absent or not positive (0 is the API's "unset"). */
const positive = (value: number | undefined, fallback: number): number => (value !== undefined && value > 0 ? value : fallback);

export function probeTiming(probe: Probe, kind: ProbeKind, secondMs = 1000): ProbeTiming {
  return {
    initialDelayMs: Math.max(0, probe.initialDelaySeconds ?? 0) * secondMs,
    periodMs: positive(probe.periodSeconds, DEFAULT_PERIOD_SECONDS) * secondMs,
    timeoutMs: positive(probe.timeoutSeconds, DEFAULT_TIMEOUT_SECONDS) * secondMs,
    successThreshold: kind === 'readiness' ? positive(probe.successThreshold, DEFAULT_SUCCESS_THRESHOLD) : 1,
    failureThreshold: positive(probe.failureThreshold, DEFAULT_FAILURE_THRESHOLD),
  };
}
