/**
 * The kubelet's configuration after flags are parsed (upstream's
 * KubeletConfiguration subset k8ts reads), with upstream's defaults.
 */
import type { Taint } from 'kubernetes-types/core/v1.js';
import type { BackoffConfig } from '../pod-workers/interface.js';

export type ContainerRuntimeName = 'process' | 'cri' | 'sim';

export const KUBELET_DEFAULTS = {
  nodeIP: '127.0.0.1',
  rootDir: '.k8ts/kubelet',
  port: 10250,
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 5 * 60_000,
  nodeLeaseDurationSeconds: 40,
  syncFrequencyMs: 60_000,
  fileCheckFrequencyMs: 20_000,
  maxPods: 110,
  /** Upstream's CrashLoopBackOff: 10 s doubling to 5 min, reset after 10 min of running. */
  backoff: { initialMs: 10_000, maxMs: 5 * 60_000, resetAfterMs: 10 * 60_000 } satisfies BackoffConfig,
} as const;

export interface KubeletConfiguration {
  readonly nodeName: string;
  readonly nodeIP: string;
  /** Absolute. Holds checkpoints/, pods/, logs/, runtime/ (process runtime state), pki/ (self-signed serving certificate). */
  readonly rootDir: string;
  readonly podManifestPath?: string;
  /** The kubelet server's port (0: a free one). */
  readonly port: number;
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly clientCaFile: string;
  readonly nodeStatusUpdateFrequencyMs: number;
  readonly nodeStatusReportFrequencyMs: number;
  readonly nodeLeaseDurationSeconds: number;
  readonly syncFrequencyMs: number;
  readonly fileCheckFrequencyMs: number;
  readonly registerNode: boolean;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly registerWithTaints: readonly Taint[];
  readonly maxPods: number;
  readonly backoff: BackoffConfig;
  /** How long the first list of API pods may take before the checkpoint stands in (default 5 s). */
  readonly checkpointGraceMs?: number;
  /** --cluster-dns, --cluster-domain, --resolv-conf (upstream's; defaults none, '', /etc/resolv.conf): pods' DNS (pod-workers/dns-config.ts). */
  readonly clusterDNS?: readonly string[];
  readonly clusterDomain?: string;
  readonly resolvConf?: string;
}
