/**
 * The flags of `k8ts kubelet`, with upstream kubelet's names and defaults
 * where upstream has the flag, plus k8ts's own: --images-dir (the process
 * runtime's images) and the CrashLoopBackOff timers (upstream fixes them at
 * 10 s doubling to 5 min, reset after 10 min; tests shorten them).
 * Every value is checked here, so that a bad flag fails at once with a
 * message naming it (exit 1), never later in a loop.
 */
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Taint } from 'kubernetes-types/core/v1.js';
import { KUBELET_DEFAULTS, type ContainerRuntimeName } from '../kubelet/config/kubelet-config.js';
import { unknownKubernetesLabelsError } from '../kubelet/node/node-labels.js';
import { isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../machinery/validation/names.js';
import { parseBoolFlag } from './controller-manager-flags.js';
import { durationFlag, formatDurationMs } from './go-duration.js';
import { parsePort } from './port-flag.js';

/** Flags as commander gives them to the action. */
export interface KubeletFlags {
  kubeconfig?: string;
  nodeName: string;
  nodeIp: string;
  rootDir: string;
  podManifestPath?: string;
  port: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  containerRuntime: ContainerRuntimeName;
  containerRuntimeEndpoint?: string;
  imagesDir?: string;
  nodeStatusUpdateFrequency: number;
  nodeStatusReportFrequency: number;
  nodeLeaseDurationSeconds: number;
  syncFrequency: number;
  fileCheckFrequency: number;
  registerNode: boolean;
  nodeLabels: Record<string, string>;
  registerWithTaints: Taint[];
  maxPods: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  crashLoopBackoffInitial: number;
  crashLoopBackoffMax: number;
  crashLoopBackoffReset: number;
  clusterDns: string[];
  clusterDomain: string;
  resolvConf: string;
}

/** Upstream's default node name: the host name, lower-cased. */
export const defaultNodeName = (): string => hostname().toLowerCase();

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`invalid value "${value}": must be a positive integer`);
  return Number(value);
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new Error(`invalid value "${value}": must be a non-negative number`);
  return n;
}

function positiveDuration(value: string): number {
  const ms = durationFlag(value);
  if (ms <= 0) throw new Error(`invalid duration "${value}": must be greater than zero`);
  return ms;
}

export function parseNodeName(value: string): string {
  const errors = isDNS1123Subdomain(value);
  if (errors.length > 0) throw new Error(`invalid node name "${value}": ${errors.join('; ')}`);
  return value;
}

export function parseNodeIp(value: string): string {
  if (isIP(value) === 0) throw new Error(`invalid IP address "${value}"`);
  return value;
}

/** `key=value,key2=value2` (a value may be empty), as upstream's --node-labels (a mapStringString). Repeats merge. */
export function parseNodeLabels(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const labels: Record<string, string> = { ...previous };
  for (const pair of value.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const eq = pair.indexOf('=');
    if (eq === -1) throw new Error(`invalid label "${pair}": must be key=value`);
    const key = pair.slice(0, eq).trim();
    const val = pair.slice(eq + 1).trim();
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(`invalid label key "${key}": ${keyErrors.join('; ')}`);
    const valueErrors = isValidLabelValue(val);
    if (valueErrors.length > 0) throw new Error(`invalid label value "${val}" of "${key}": ${valueErrors.join('; ')}`);
    labels[key] = val;
  }
  const forbidden = unknownKubernetesLabelsError(labels);
  if (forbidden !== undefined) throw new Error(forbidden);
  return labels;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** `key=value:Effect` or `key:Effect`, comma-separated, as upstream's --register-with-taints. Repeats add. */
export function parseTaints(value: string, previous: Taint[] = []): Taint[] {
  const taints = [...previous];
  for (const spec of value.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const colon = spec.lastIndexOf(':');
    if (colon === -1) throw new Error(`invalid taint spec: ${spec}`);
    const effect = spec.slice(colon + 1);
    if (!TAINT_EFFECTS.includes(effect)) throw new Error(`invalid taint effect: ${effect}, unsupported taint effect`);
    const keyValue = spec.slice(0, colon);
    const eq = keyValue.indexOf('=');
    const key = eq === -1 ? keyValue : keyValue.slice(0, eq);
    const val = eq === -1 ? '' : keyValue.slice(eq + 1);
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(`invalid taint key "${key}": ${keyErrors.join('; ')}`);
    const valueErrors = isValidLabelValue(val);
    if (valueErrors.length > 0) throw new Error(`invalid taint value "${val}": ${valueErrors.join('; ')}`);
    taints.push({ key, effect, ...(val !== '' ? { value: val } : {}) });
  }
  return taints;
}

/** A parser whose errors commander reports with the flag's name and value (`option '--x <v>' argument 'y' is invalid. …`), exit 1. */
function checked<T>(parse: (value: string, previous: T) => T): (value: string, previous: T) => T {
  return (value, previous) => {
    try {
      return parse(value, previous);
    } catch (e: unknown) {
      throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
    }
  };
}

const durationOption = (flag: string, defaultMs: number, help: string, parse: (v: string) => number = durationFlag): Option =>
  new Option(`--${flag} <duration>`, help).default(defaultMs, formatDurationMs(defaultMs)).argParser(checked(parse));

export function addKubeletFlags(command: Command): Command {
  const d = KUBELET_DEFAULTS;
  return command
    .addOption(new Option('--kubeconfig <path>', "kubeconfig with the API server and the node's credentials (required)"))
    .addOption(new Option('--node-name <name>', "this node's name").default(defaultNodeName(), 'the host name').argParser(checked(parseNodeName)))
    .addOption(new Option('--node-ip <ip>', "this node's address: the kubelet listens on it and reports it as InternalIP").default(d.nodeIP).argParser(checked(parseNodeIp)))
    .addOption(new Option('--root-dir <dir>', 'where the kubelet keeps its files (checkpoints, pods, logs, runtime state)').default(d.rootDir))
    .addOption(new Option('--pod-manifest-path <path>', 'a directory of static pod manifests (or one file), run without the API server'))
    .addOption(new Option('--port <port>', "the kubelet server's HTTPS port (0: pick a free one)").default(d.port).argParser(checked(parsePort)))
    .addOption(new Option('--tls-cert-file <path>', 'serving certificate (default: a self-signed one made under <root-dir>/pki)'))
    .addOption(new Option('--tls-private-key-file <path>', 'key of --tls-cert-file'))
    .addOption(new Option('--client-ca-file <path>', "CA whose client certificates the kubelet server accepts (default: the kubeconfig's CA)"))
    .addOption(new Option('--container-runtime <name>', 'process (host processes), cri (containerd over --container-runtime-endpoint) or sim').default('process').choices(['process', 'cri', 'sim']))
    .addOption(new Option('--container-runtime-endpoint <endpoint>', "the CRI runtime's unix socket (unix:///run/containerd/containerd.sock), for --container-runtime cri"))
    .addOption(new Option('--images-dir <dir>', "the process runtime's image directories (default: .k8ts/images, as `k8ts image`)"))
    .addOption(durationOption('node-status-update-frequency', d.nodeStatusUpdateFrequencyMs, 'how often the node status is computed (and written if it changed)', positiveDuration))
    .addOption(durationOption('node-status-report-frequency', d.nodeStatusReportFrequencyMs, 'how often the node status is written when it did not change', positiveDuration))
    .addOption(new Option('--node-lease-duration-seconds <seconds>', "the node Lease's duration; it is renewed every quarter of it").default(d.nodeLeaseDurationSeconds).argParser(checked(positiveInt)))
    .addOption(durationOption('sync-frequency', d.syncFrequencyMs, 'how often every pod is synced even without a change', positiveDuration))
    .addOption(durationOption('file-check-frequency', d.fileCheckFrequencyMs, 'how often the static pod manifests are read again', positiveDuration))
    .addOption(new Option('--register-node [bool]', 'register the Node with the API server').default(true).argParser(checked(parseBoolFlag)).preset(true))
    .addOption(
      new Option('--node-labels <key=value,...>', 'labels to add when registering the Node (kubernetes.io/ and k8s.io/ only for kubelet labels)')
        .default({} as Record<string, string>, 'none')
        .argParser(checked(parseNodeLabels)),
    )
    .addOption(new Option('--register-with-taints <key=value:Effect,...>', 'taints of the Node when it is registered').default([] as Taint[], 'none').argParser(checked(parseTaints)))
    .addOption(new Option('--max-pods <n>', 'how many pods this node runs at most').default(d.maxPods).argParser(checked(positiveInt)))
    .addOption(new Option('--kube-api-qps <qps>', 'requests per second to the API server').default(50).argParser(checked(nonNegativeNumber)))
    .addOption(new Option('--kube-api-burst <n>', 'burst of requests to the API server').default(100).argParser(checked(positiveInt)))
    .addOption(
      new Option('--cluster-dns <ip,...>', 'the cluster DNS server addresses written into pods\' resolv.conf (dnsPolicy ClusterFirst)')
        .default([] as string[], 'none')
        .argParser(checked((value: string, previous: string[]) => [...previous, ...value.split(',').map((ip) => parseNodeIp(ip.trim()))])),
    )
    .addOption(new Option('--cluster-domain <domain>', 'the cluster domain: pods search <namespace>.svc.<domain>, svc.<domain>, <domain>').default(''))
    .addOption(new Option('--resolv-conf <path>', 'the resolv.conf that pods with dnsPolicy Default (and ClusterFirst search paths) start from').default('/etc/resolv.conf'))
    .addOption(durationOption('crash-loop-backoff-initial', d.backoff.initialMs, 'k8ts: the first restart delay of a crashing container (upstream 10s)', positiveDuration))
    .addOption(durationOption('crash-loop-backoff-max', d.backoff.maxMs, 'k8ts: the longest restart delay (upstream 5m)', positiveDuration))
    .addOption(durationOption('crash-loop-backoff-reset', d.backoff.resetAfterMs, 'k8ts: a container running this long starts again from the first delay (upstream 10m)', positiveDuration));
}

/** Checks across flags; returns the message of the first problem. */
export function kubeletFlagsError(flags: KubeletFlags): string | undefined {
  if (flags.kubeconfig === undefined || flags.kubeconfig === '') return '--kubeconfig is required: the kubelet reaches the API server only through it';
  if ((flags.tlsCertFile === undefined) !== (flags.tlsPrivateKeyFile === undefined)) return '--tls-cert-file and --tls-private-key-file go together: give both or neither';
  if (flags.containerRuntime === 'cri' && (flags.containerRuntimeEndpoint ?? '') === '') return '--container-runtime cri needs --container-runtime-endpoint (e.g. unix:///run/containerd/containerd.sock)';
  if (flags.containerRuntimeEndpoint !== undefined && flags.containerRuntime !== 'cri') return `--container-runtime-endpoint is for --container-runtime cri, not ${flags.containerRuntime}`;
  if (flags.crashLoopBackoffMax < flags.crashLoopBackoffInitial) return '--crash-loop-backoff-max must not be shorter than --crash-loop-backoff-initial';
  return undefined;
}

export const absoluteRootDir = (flags: Pick<KubeletFlags, 'rootDir'>): string => resolve(flags.rootDir);
