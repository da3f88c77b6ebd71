/**
 * The pod conditions the kubelet owns (upstream's status/generate.go):
 * PodReadyToStartContainers, Initialized, ContainersReady and Ready, with
 * upstream's reasons and messages ("containers with unready status: [a b]").
 */
import type { ContainerStatus, PodCondition } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../types.js';
import type { PodPhase } from './pod-phase.js';

export const KUBELET_CONDITIONS = new Set(['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready']);

/** Go's `%s` of a []string: `[a b]`. */
const goList = (names: readonly string[]): string => `[${names.join(' ')}]`;
const statusOf = (statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined => statuses.find((s) => s.name === name);

type Condition = Omit<PodCondition, 'lastTransitionTime'>;

export function containersReadyCondition(pod: Pod, statuses: readonly ContainerStatus[], phase: PodPhase): Condition {
  const unknown: string[] = [];
  const unready: string[] = [];
  const check = (name: string): void => {
    const s = statusOf(statuses, name);
    if (s === undefined) unknown.push(name);
    else if (!s.ready) unready.push(name);
  };
  for (const c of pod.spec?.initContainers ?? []) if (c.restartPolicy === 'Always') check(c.name);
  for (const c of pod.spec?.containers ?? []) check(c.name);
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: messages.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

export function readyCondition(pod: Pod, conditions: readonly PodCondition[], statuses: readonly ContainerStatus[], phase: PodPhase): Condition {
  const containersReady = containersReadyCondition(pod, statuses, phase);
  if (containersReady.status !== 'True') {
    return { type: 'Ready', status: containersReady.status, ...(containersReady.reason !== undefined ? { reason: containersReady.reason } : {}), ...(containersReady.message !== undefined ? { message: containersReady.message } : {}) };
  }
  const messages: string[] = [];
  for (const gate of pod.spec?.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (c === undefined) messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True') messages.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  if (messages.length > 0) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: messages.join(', ') };
  return { type: 'Ready', status: 'True' };
}

export function initializedCondition(pod: Pod, statuses: readonly ContainerStatus[], phase: PodPhase): Condition {
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) {
    const s = statusOf(statuses, c.name);
    if (s === undefined) {
      unknown.push(c.name);
      continue;
    }
    const initialized = c.restartPolicy === 'Always' ? s.started === true : s.ready;
    if (!initialized) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  const anyRegularStarted = (pod.spec?.containers ?? []).some((c) => {
    const s = statusOf(statuses, c.name);
    return s !== undefined && (s.state?.running !== undefined || s.state?.terminated !== undefined || s.lastState?.terminated !== undefined);
  });
  if (anyRegularStarted) return { type: 'Initialized', status: 'True' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (messages.length > 0) return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: messages.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

export function readyToStartContainersCondition(sandboxReady: boolean): Condition {
  return { type: 'PodReadyToStartContainers', status: sandboxReady ? 'True' : 'False' };
}
