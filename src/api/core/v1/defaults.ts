/**
 * Upstream's defaulting of pods and pod templates (pkg/apis/core/v1
 * defaults.go and the generated SetObjectDefaults_*): what the API server
 * fills in on every create and update body before validation, so that
 * `kubectl get -o yaml` shows what upstream shows. Pure functions that mutate
 * the object they are given; applying one twice changes nothing.
 */
import type {
  Container,
  EphemeralContainer,
  HTTPGetAction,
  Lifecycle,
  ObjectFieldSelector,
  Pod,
  PodSpec,
  PodTemplate,
  PodTemplateSpec,
  Probe,
  Volume,
} from 'kubernetes-types/core/v1.js';

/** Upstream's DefaultSchedulerName. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** Upstream's DefaultTerminationGracePeriodSeconds. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** Upstream's TerminationMessagePathDefault. */
export const TERMINATION_MESSAGE_PATH_DEFAULT = '/dev/termination-log';
/** 0644: the default mode of secret, config map, downward API and projected volumes. */
export const VOLUME_DEFAULT_MODE = 0o644;

/** A whole Pod: its spec as any pod spec, then what only real pods get (requests from limits, service links). */
export function defaultPod(pod: Pod): void {
  pod.spec ??= { containers: [] };
  const spec = pod.spec;
  defaultPodSpec(spec);
  for (const containers of [spec.containers, spec.initContainers]) {
    for (const c of containers ?? []) {
      defaultRequestsFromLimits(c);
      if (spec.hostNetwork === true) {
        for (const port of c.ports ?? []) if ((port.hostPort ?? 0) === 0) port.hostPort = port.containerPort;
      }
    }
  }
  spec.enableServiceLinks ??= true;
}

/** A PodTemplate object (core/v1). */
export function defaultPodTemplate(template: PodTemplate): void {
  template.template ??= {};
  defaultPodTemplateSpec(template.template);
}

/**
 * A pod template inside another object (Deployment, Job, …): the pod spec
 * defaults, and an ObjectMeta that serializes as upstream's does
 * (`metadata: {creationTimestamp: null}`: a zero time is written as null).
 */
export function defaultPodTemplateSpec(template: PodTemplateSpec): void {
  template.metadata ??= {};
  const meta = template.metadata as Record<string, unknown>;
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  template.spec ??= { containers: [] };
  defaultPodSpec(template.spec);
}

/** Upstream's SetDefaults_PodSpec and the defaults of everything a pod spec holds. */
export function defaultPodSpec(spec: PodSpec): void {
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  if (!spec.schedulerName) spec.schedulerName = DEFAULT_SCHEDULER_NAME;
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

/** Upstream's SetDefaults_Container plus the defaults of its ports, probes, lifecycle hooks and env. */
export function defaultContainer(c: Container | EphemeralContainer): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  if (!c.terminationMessagePath) c.terminationMessagePath = TERMINATION_MESSAGE_PATH_DEFAULT;
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  // ResourceRequirements is a struct upstream: it is always written, `{}` when empty.
  c.resources ??= {};
  for (const port of c.ports ?? []) if (!port.protocol) port.protocol = 'TCP';
  if (c.livenessProbe) defaultProbe(c.livenessProbe);
  if (c.readinessProbe) defaultProbe(c.readinessProbe);
  if (c.startupProbe) defaultProbe(c.startupProbe);
  if (c.lifecycle) defaultLifecycle(c.lifecycle);
  for (const env of c.env ?? []) if (env.valueFrom?.fieldRef) defaultFieldRef(env.valueFrom.fieldRef);
}

/** Requests default to limits (only in pods, not in templates: upstream's SetDefaults_Pod). */
function defaultRequestsFromLimits(c: Container): void {
  const limits = c.resources?.limits;
  if (limits === undefined || limits === null) return;
  const resources = (c.resources ??= {});
  const requests = (resources.requests ??= {});
  for (const name of Object.keys(limits)) if (!(name in requests)) requests[name] = limits[name]!;
}

/** Upstream's SetDefaults_Probe, with its handler's defaults. */
export function defaultProbe(probe: Probe): void {
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  if (probe.httpGet) defaultHTTPGet(probe.httpGet);
}

function defaultLifecycle(lifecycle: Lifecycle): void {
  for (const handler of [lifecycle.postStart, lifecycle.preStop]) if (handler?.httpGet) defaultHTTPGet(handler.httpGet);
}

/** Upstream's SetDefaults_HTTPGetAction: path `/`, scheme HTTP. */
function defaultHTTPGet(action: HTTPGetAction): void {
  if (!action.path) action.path = '/';
  if (!action.scheme) action.scheme = 'HTTP';
}

/** Upstream's SetDefaults_ObjectFieldSelector: apiVersion v1. */
function defaultFieldRef(ref: ObjectFieldSelector): void {
  if (!ref.apiVersion) ref.apiVersion = 'v1';
}

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
] as const;

const VOLUME_SOURCE_NAMES: ReadonlySet<string> = new Set(VOLUME_SOURCES);

/** The volume sources a volume names (normally one), in VOLUME_SOURCES order. */
export function volumeSources(v: Volume): string[] {
  const record = v as unknown as Record<string, unknown>;
  // A volume (plain JSON) has a few keys: its one source is found among them rather than by
  // looking up all 30 names; with more than one, the list below gives them in their order.
  let found: string | undefined;
  let count = 0;
  for (const key of Object.keys(record)) {
    if (VOLUME_SOURCE_NAMES.has(key) && record[key] !== undefined && record[key] !== null) {
      found = key;
      count++;
    }
  }
  if (count <= 1) return found === undefined ? [] : [found];
  return VOLUME_SOURCES.filter((s) => record[s] !== undefined && record[s] !== null);
}

/** Upstream's SetDefaults_Volume and the defaults of the volume sources. */
export function defaultVolume(v: Volume): void {
  if (volumeSources(v).length === 0) v.emptyDir = {};
  if (v.secret) v.secret.defaultMode ??= VOLUME_DEFAULT_MODE;
  if (v.configMap) v.configMap.defaultMode ??= VOLUME_DEFAULT_MODE;
  if (v.downwardAPI) {
    v.downwardAPI.defaultMode ??= VOLUME_DEFAULT_MODE;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef) defaultFieldRef(item.fieldRef);
  }
  if (v.projected) {
    v.projected.defaultMode ??= VOLUME_DEFAULT_MODE;
    for (const source of v.projected.sources ?? []) {
      if (source.serviceAccountToken) source.serviceAccountToken.expirationSeconds ??= 3600;
      for (const item of source.downwardAPI?.items ?? []) if (item.fieldRef) defaultFieldRef(item.fieldRef);
    }
  }
  if (v.hostPath) v.hostPath.type ??= '';
  if (v.iscsi) {
    if (!v.iscsi.iscsiInterface) v.iscsi.iscsiInterface = 'default';
  }
  if (v.rbd) {
    if (!v.rbd.pool) v.rbd.pool = 'rbd';
    if (!v.rbd.user) v.rbd.user = 'admin';
    if (!v.rbd.keyring) v.rbd.keyring = '/etc/ceph/keyring';
  }
  if (v.azureDisk) {
    v.azureDisk.cachingMode ??= 'ReadWrite';
    v.azureDisk.fsType ??= 'ext4';
    v.azureDisk.readOnly ??= false;
    v.azureDisk.kind ??= 'Shared';
  }
  if (v.ephemeral?.volumeClaimTemplate?.spec) v.ephemeral.volumeClaimTemplate.spec.volumeMode ??= 'Filesystem';
}

/**
 * The tag of an image reference as upstream's parsers.ParseImageName gives
 * it: the tag after the last `:` of the last path component, `latest` when
 * there is neither tag nor digest, and '' when the reference does not parse
 * (upstream then defaults the pull policy to IfNotPresent).
 */
export function imageTag(image: string): string {
  let tag = imageTags.get(image);
  if (tag === undefined) {
    tag = readImageTag(image);
    if (imageTags.size >= MAX_IMAGE_TAGS) imageTags.clear();
    imageTags.set(image, tag);
  }
  return tag;
}

/**
 * The tags of recent images: every pod a workload makes names the same few
 * images, and reading one costs regular expressions. Bounded: cleared when full.
 */
const imageTags = new Map<string, string>();
const MAX_IMAGE_TAGS = 1024;

/** imageTag's reading of an image it has not seen lately. */
function readImageTag(image: string): string {
  if (image === '' || image !== image.trim()) return '';
  const at = image.indexOf('@');
  const withoutDigest = at >= 0 ? image.slice(0, at) : image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > slash;
  const name = hasTag ? withoutDigest.slice(0, colon) : withoutDigest;
  const tag = hasTag ? withoutDigest.slice(colon + 1) : '';
  // The repository path is lower case (a registry host before the first '/' may have upper case and a port).
  const first = name.indexOf('/');
  const path = first >= 0 && /[.:]|^localhost$/.test(name.slice(0, first)) ? name.slice(first + 1) : name;
  if (!/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(path)) return '';
  if (hasTag && !/^[\w][\w.-]{0,127}$/.test(tag)) return '';
  if (tag === '' && at < 0) return 'latest';
  return tag;
}
