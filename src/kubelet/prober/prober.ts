/**
 * One probe of one container, as upstream's prober.probe: run the handler
 * the Probe names (retrying up to 3 times while it cannot run at all),
 * record upstream's events on the container (involvedObject.fieldPath) — Warning `Unhealthy` "Liveness probe
 * failed: <output>" or "… probe errored and resulted in unknown state: <error>",
 * Warning `ProbeWarning` "… probe warning: <output>" — and answer success,
 * failure, or unknown (errored: the worker throws the result away).
 */
import type { HTTPGetAction, Probe } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { RuntimeService } from '../runtime/interface.js';
import type { ContainerSpec, Pod } from '../types.js';
import { containerFieldPath } from '../pod-workers/container-ref.js';
import { resolveContainerPort } from './container-port.js';
import { execProbe } from './exec-probe.js';
import { expandCommand } from './expand-command.js';
import { grpcProbe } from './grpc-probe.js';
import { httpProbe } from './http-probe.js';
import { newHttpProbeRequest, type HttpProbeRequest } from './http-probe-request.js';
import type { ProbeKind } from './interface.js';
import { ProbeError, type ProbeOutcome } from './probe-outcome.js';
import { tcpProbe } from './tcp-probe.js';

export type ProbeResult = 'success' | 'failure' | 'unknown';

/** Upstream's probeType.String(): the word that starts every probe event. */
export const PROBE_KIND_NAMES: Readonly<Record<ProbeKind, string>> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/** Event reasons (pkg/kubelet/events). */
export const REASON_UNHEALTHY = 'Unhealthy';
export const REASON_PROBE_WARNING = 'ProbeWarning';

const MAX_PROBE_RETRIES = 3;

export interface ProbeTarget {
  readonly pod: Pod;
  readonly container: ContainerSpec;
  readonly containerId: string;
  /** Where a probe without a host connects (grpc always connects here). */
  readonly podIP: string;
}

export interface Prober {
  probe(kind: ProbeKind, probe: Probe, target: ProbeTarget, timeoutMs: number): Promise<ProbeResult>;
}

/** Upstream's format.Pod: `name_namespace(uid)`. */
const formatPod = (pod: Pod): string => `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;

/** The request of each httpGet action, made once for the container and pod IP it was last made for (a worker probes one target every period). */
const httpRequests = new WeakMap<HTTPGetAction, { readonly container: ContainerSpec; readonly podIP: string; readonly request: HttpProbeRequest }>();
function httpRequestFor(action: HTTPGetAction, container: ContainerSpec, podIP: string): HttpProbeRequest {
  const made = httpRequests.get(action);
  if (made !== undefined && made.container === container && made.podIP === podIP) return made.request;
  const request = newHttpProbeRequest(action, container, podIP);
  httpRequests.set(action, { container, podIP, request });
  return request;
}

/** Runs the handler the probe names; throws ProbeError when it cannot run. */
export function runHandler(runtime: RuntimeService, probe: Probe, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const { container, podIP } = target;
  if (probe.exec !== undefined) {
    const command = expandCommand(probe.exec.command ?? [], container.env);
    return execProbe({ runtime, containerId: target.containerId, command, timeoutMs });
  }
  if (probe.httpGet !== undefined) {
    return httpProbe({ request: httpRequestFor(probe.httpGet, container, podIP), timeoutMs });
  }
  if (probe.tcpSocket !== undefined) {
    const host = probe.tcpSocket.host !== undefined && probe.tcpSocket.host !== '' ? probe.tcpSocket.host : podIP;
    return tcpProbe({ host, port: resolveContainerPort(probe.tcpSocket.port, container), timeoutMs });
  }
  if (probe.grpc !== undefined) {
    return grpcProbe({ host: podIP, port: probe.grpc.port, service: probe.grpc.service ?? '', timeoutMs });
  }
  throw new ProbeError(`missing probe handler for ${formatPod(target.pod)}:${container.name}`);
}

export interface ProberOptions {
  readonly runtime: RuntimeService;
  readonly events: EventRecorder;
}

export function newProber({ runtime, events }: ProberOptions): Prober {
  const attempt = async (probe: Probe, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome | ProbeError> => {
    let last: ProbeError = new ProbeError('probe did not run');
    for (let i = 0; i < MAX_PROBE_RETRIES; i++) {
      try {
        return await runHandler(runtime, probe, target, timeoutMs);
      } catch (e: unknown) {
        last = e instanceof ProbeError ? e : new ProbeError(e instanceof Error ? e.message : String(e), { cause: e });
      }
    }
    return last;
  };
  return {
    async probe(kind, probe, target, timeoutMs) {
      const name = PROBE_KIND_NAMES[kind];
      const outcome = await attempt(probe, target, timeoutMs);
      // Only an event needs the container's field path (most probes succeed quietly).
      const about = (): { fieldPath: string | undefined } => ({ fieldPath: containerFieldPath(target.pod, target.container.name) });
      if (outcome instanceof ProbeError) {
        events.event(target.pod, 'Warning', REASON_UNHEALTHY, `${name} probe errored and resulted in ${outcome.state} state: ${outcome.message}`, about());
        return 'unknown';
      }
      if (outcome.verdict === 'failure') {
        events.event(target.pod, 'Warning', REASON_UNHEALTHY, `${name} probe failed: ${outcome.output}`, about());
        return 'failure';
      }
      if (outcome.verdict === 'warning') events.event(target.pod, 'Warning', REASON_PROBE_WARNING, `${name} probe warning: ${outcome.output}`, about());
      return 'success';
    },
  };
}
