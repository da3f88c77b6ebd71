/**
 * `kubectl get pods`: READY, STATUS, RESTARTS as upstream's printPod computes
 * them, including init containers (`Init:0/1`), sidecars (init containers
 * with restartPolicy Always count as containers), `Terminating`, and the
 * time of the last restart (`5 (2m ago)`).
 */
import type { Container, ContainerStatus, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { TableCell, TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn, wideColumn } from '../../printing/columns.js';
import { NONE } from '../../printing/placeholders.js';
import { humanDuration } from '../../printing/human-duration.js';
import { age, parseTime } from '../../printing/timestamps.js';

/** Reason the node lifecycle controller gives pods on an unreachable node. */
const NODE_LOST = 'NodeLost';

function isRestartableInit(container: Container | undefined): boolean {
  return container?.restartPolicy === 'Always';
}

function conditionStatus(conditions: readonly PodCondition[] | undefined, type: string): string | undefined {
  return conditions?.find((c) => c.type === type)?.status;
}

function isTerminalPhase(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

/** The finish time of a container's previous run, or -Infinity if it has none. */
function lastTerminated(status: ContainerStatus): number {
  const terminated = status.lastState?.terminated;
  if (terminated === undefined) return -Infinity;
  return parseTime(terminated.finishedAt) ?? -Infinity;
}

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

function summarize(pod: Pod, now: Date): PodSummary {
  const spec = pod.spec;
  const status = pod.status ?? {};
  const initContainers = spec?.initContainers ?? [];
  const initByName = new Map(initContainers.map((c) => [c.name, c]));

  let restarts = 0;
  let sidecarRestarts = 0;
  let totalContainers = (spec?.containers ?? []).length;
  let readyContainers = 0;
  let lastRestart = -Infinity;
  let lastSidecarRestart = -Infinity;

  const phase = status.phase ?? '';
  let reason = status.reason !== undefined && status.reason !== '' ? status.reason : phase;

  for (const condition of status.conditions ?? []) {
    if (condition.type === 'PodScheduled' && condition.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  for (const c of initContainers) {
    if (isRestartableInit(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    if (c === undefined) continue;
    const sidecar = isRestartableInit(initByName.get(c.name));
    restarts += c.restartCount ?? 0;
    lastRestart = Math.max(lastRestart, lastTerminated(c));
    if (sidecar) {
      sidecarRestarts += c.restartCount ?? 0;
      lastSidecarRestart = Math.max(lastSidecarRestart, lastTerminated(c));
    }
    const terminated = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (terminated !== undefined && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready) readyContainers++;
      continue;
    }
    if (terminated !== undefined) {
      if (terminated.reason === undefined || terminated.reason === '') {
        reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
    } else if (waiting?.reason !== undefined && waiting.reason !== '' && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionStatus(status.conditions, 'Initialized') === 'True') {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    // Backwards, so that the first container's state has the last word.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      if (c === undefined) continue;
      restarts += c.restartCount ?? 0;
      lastRestart = Math.max(lastRestart, lastTerminated(c));
      const waiting = c.state?.waiting;
      const terminated = c.state?.terminated;
      if (waiting?.reason !== undefined && waiting.reason !== '') {
        reason = waiting.reason;
      } else if (terminated?.reason !== undefined && terminated.reason !== '') {
        reason = terminated.reason;
      } else if (terminated !== undefined) {
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (c.ready && c.state?.running !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A container still running makes a "Completed" pod Running (or NotReady).
    if (reason === 'Completed' && hasRunning) {
      reason = conditionStatus(status.conditions, 'Ready') === 'True' ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp && status.reason === NODE_LOST) {
    reason = 'Unknown';
  } else if (pod.metadata?.deletionTimestamp && !isTerminalPhase(phase)) {
    reason = 'Terminating';
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart !== -Infinity) {
    restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`;
  }
  return { ready: `${readyContainers}/${totalContainers}`, status: reason, restarts: restartsText };
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return NONE;
  let passed = 0;
  for (const gate of gates) {
    if (conditionStatus(pod.status?.conditions, gate.conditionType) === 'True') passed++;
  }
  return `${passed}/${gates.length}`;
}

/** The pod's first IP: status.podIP, else the first of status.podIPs. */
function podIP(pod: Pod): string {
  const ip = pod.status?.podIP || pod.status?.podIPs?.[0]?.ip;
  return ip ? ip : NONE;
}

export const podTable: TableConvertor<Pod> = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Ready containers out of all containers of the pod.'),
    column('Status', 'string', 'Summary of the pod phase and container states.'),
    column('Restarts', 'string', 'Container restarts in the pod, and how long ago the last one was.'),
    ageColumn(),
    wideColumn('IP', 'string', 'IP address of the pod.'),
    wideColumn('Node', 'string', 'Node the pod is bound to.'),
    wideColumn('Nominated Node', 'string', 'Node on which the scheduler preempted pods to make room for this one.'),
    wideColumn('Readiness Gates', 'string', 'Readiness gates that are true, out of all of them.'),
  ],
  cells(pod: Pod, now: Date): TableCell[] {
    const { ready, status, restarts } = summarize(pod, now);
    return [
      pod.metadata?.name ?? '',
      ready,
      status,
      restarts,
      age(pod, now),
      podIP(pod),
      pod.spec?.nodeName || NONE,
      pod.status?.nominatedNodeName || NONE,
      readinessGates(pod),
    ];
  },
};
