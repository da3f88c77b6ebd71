/**
 * The CRI sandbox config of a pod (upstream's generatePodSandboxConfig):
 * metadata, hostname, log directory `<logsDir>/<ns>_<name>_<uid>`, port
 * mappings of every container port, the kubelet's labels and the pod's
 * annotations, the namespaces (host network → NODE; the PID namespace
 * is the container's own unless shareProcessNamespace), and the pod's DNS
 * settings (dns-config.ts) when the kubelet has DNS options.
 */
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { PodSandboxConfig, PortMapping } from '../runtime/interface.js';
import { CONTAINER_TYPE_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../runtime/labels.js';
import type { Pod } from '../types.js';
import { podDnsConfig, type PodDnsOptions } from './dns-config.js';
import { isHostNetwork } from './pod-actions.js';

/** `<logsDir>/<namespace>_<name>_<uid>`, as upstream's BuildPodLogsDirectory. */
export const podLogsDirectory = (logsDir: string, pod: Pod): string =>
  join(logsDir, `${pod.metadata.namespace ?? ''}_${pod.metadata.name ?? ''}_${pod.metadata.uid ?? ''}`);

/** The labels on the pod's sandbox and containers that let anyone find them by pod. */
export const podLabels = (pod: Pod): Record<string, string> => ({
  [POD_NAME_LABEL]: pod.metadata.name ?? '',
  [POD_NAMESPACE_LABEL]: pod.metadata.namespace ?? '',
  [POD_UID_LABEL]: pod.metadata.uid ?? '',
});

/** The pod's hostname: spec.hostname, else its name cut to 63 characters (the node's name for host-network pods). */
export function podHostname(pod: Pod): string {
  if (isHostNetwork(pod)) return osHostname();
  const name = pod.spec?.hostname ?? pod.metadata.name ?? '';
  return name.length > 63 ? name.slice(0, 63).replace(/[-.]+$/, '') : name;
}

function portMappings(pod: Pod): PortMapping[] {
  const mappings: PortMapping[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      const protocol = p.protocol === 'UDP' || p.protocol === 'SCTP' ? p.protocol : 'TCP';
      mappings.push({
        protocol,
        containerPort: p.containerPort,
        ...(p.hostPort !== undefined && p.hostPort > 0 ? { hostPort: p.hostPort } : {}),
        ...(p.hostIP !== undefined && p.hostIP !== '' ? { hostIp: p.hostIP } : {}),
      });
    }
  }
  return mappings;
}

export function podSandboxConfig(pod: Pod, attempt: number, logsDir: string, dns?: PodDnsOptions): PodSandboxConfig {
  const podLabelsFromSpec = Object.fromEntries(Object.entries(pod.metadata.labels ?? {}));
  return {
    metadata: { name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '', namespace: pod.metadata.namespace ?? '', attempt },
    hostname: podHostname(pod),
    ...(dns !== undefined ? { dnsConfig: podDnsConfig(pod, dns).config } : {}),
    logDirectory: podLogsDirectory(logsDir, pod),
    portMappings: portMappings(pod),
    labels: { ...podLabelsFromSpec, ...podLabels(pod), [CONTAINER_TYPE_LABEL]: 'podsandbox' },
    annotations: { ...(pod.metadata.annotations ?? {}) },
    linux: {
      namespaceOptions: {
        network: isHostNetwork(pod) ? 'NODE' : 'POD',
        pid: pod.spec?.shareProcessNamespace === true ? 'POD' : pod.spec?.hostPID === true ? 'NODE' : 'CONTAINER',
        ipc: pod.spec?.hostIPC === true ? 'NODE' : 'POD',
      },
    },
  };
}
