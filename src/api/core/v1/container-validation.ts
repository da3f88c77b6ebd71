/**
 * Validation of a pod's containers as upstream's pkg/apis/core/validation
 * does it (validateContainers, validateContainerCommon and their helpers),
 * with upstream's messages: names, images, ports, env, resources, probes,
 * pull and termination-message policies, volume mounts.
 */
import type { Container, ContainerPort, EnvVar, Probe, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import {
  duplicate,
  forbidden,
  invalid,
  notFound,
  notSupported,
  required,
  type FieldError,
  type FieldPath,
} from '../../../machinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../machinery/validation/names.js';
import {
  isConfigMapKey,
  isHTTPHeaderName,
  isRelaxedEnvVarName,
  isValidPortName,
  isValidPortNum,
  validateNonnegativeField,
  validatePortNumOrName,
} from '../../../machinery/validation/values.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation/messages.js';
import { parseQuantityNanos } from './quantity.js';
import { canonicalQuantity } from '../../../machinery/quantity.js';

/** Adds `more` to `errs` (most checks find nothing: then nothing is copied). */
function addAll(errs: FieldError[], more: readonly FieldError[]): void {
  for (const e of more) errs.push(e);
}

/** A DNS-1123 label field: one Invalid error per rule it breaks. */
export function validateDNS1123Label(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(path, value, m));
}

const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const HTTP_SCHEMES = ['HTTP', 'HTTPS'];
const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const RESOURCE_FIELD_REFS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

export interface ContainerContext {
  /** The names of the pod's valid volumes, which mounts may name. */
  readonly volumes: ReadonlySet<string>;
  readonly restartPolicy: string | undefined;
}

/** Upstream's validateContainers: at least one, each valid, names unique, host ports unique. */
export function validateContainers(containers: readonly Container[] | undefined, ctx: ContainerContext, path: FieldPath): FieldError[] {
  if (containers === undefined || containers === null || containers.length === 0) return [required(path, '')];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, p));
    if (names.has(c.name)) errs.push(duplicate(p.child('name'), c.name));
    else names.add(c.name);
    errs.push(...validateLifecycle(c, p));
    errs.push(...validateLivenessProbe(c.livenessProbe, p.child('livenessProbe')));
    errs.push(...validateReadinessProbe(c.readinessProbe, p.child('readinessProbe')));
    errs.push(...validateStartupProbe(c.startupProbe, p.child('startupProbe')));
    if ((c as { restartPolicy?: string }).restartPolicy !== undefined) {
      errs.push(forbidden(p.child('restartPolicy'), 'may not be set for non-init containers'));
    }
  });
  errs.push(...checkHostPortConflicts(containers, path));
  return errs;
}

/** Upstream's validateInitContainers (without sidecar-specific probe rules beyond the basics). */
export function validateInitContainers(
  containers: readonly Container[] | undefined,
  regular: readonly Container[] | undefined,
  ctx: ContainerContext,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  if (containers === undefined || containers === null || containers.length === 0) return errs;
  const names = new Set((regular ?? []).map((c) => c.name));
  containers.forEach((c, i) => {
    const p = path.index(i);
    errs.push(...validateContainerCommon(c, ctx, p));
    if (names.has(c.name)) errs.push(duplicate(p.child('name'), c.name));
    else names.add(c.name);
    const restartPolicy = (c as { restartPolicy?: string }).restartPolicy;
    if (restartPolicy === undefined) {
      if (c.lifecycle) errs.push(forbidden(p.child('lifecycle'), 'may not be set for init containers without restartPolicy=Always'));
      if (c.livenessProbe) errs.push(forbidden(p.child('livenessProbe'), 'may not be set for init containers without restartPolicy=Always'));
      if (c.readinessProbe) errs.push(forbidden(p.child('readinessProbe'), 'may not be set for init containers without restartPolicy=Always'));
      if (c.startupProbe) errs.push(forbidden(p.child('startupProbe'), 'may not be set for init containers without restartPolicy=Always'));
    } else if (restartPolicy === 'Always') {
      errs.push(...validateLifecycle(c, p));
      errs.push(...validateLivenessProbe(c.livenessProbe, p.child('livenessProbe')));
      errs.push(...validateReadinessProbe(c.readinessProbe, p.child('readinessProbe')));
      errs.push(...validateStartupProbe(c.startupProbe, p.child('startupProbe')));
    } else {
      errs.push(notSupported(p.child('restartPolicy'), restartPolicy, ['Always']));
    }
  });
  return errs;
}

/** What every container (regular, init, ephemeral) must satisfy. */
export function validateContainerCommon(c: Container, ctx: ContainerContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = c.name ?? '';
  if (name === '') errs.push(required(path.child('name'), ''));
  else errs.push(...validateDNS1123Label(name, path.child('name')));
  if ((c.image ?? '') === '') errs.push(required(path.child('image'), ''));
  const policy = c.terminationMessagePolicy ?? '';
  if (policy === '') errs.push(required(path.child('terminationMessagePolicy'), "must be 'File' or 'FallbackToLogsOnError'"));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(policy)) errs.push(notSupported(path.child('terminationMessagePolicy'), policy, TERMINATION_MESSAGE_POLICIES));
  errs.push(...validateContainerPorts(c.ports, path.child('ports')));
  errs.push(...validateEnv(c.env, path.child('env')));
  errs.push(...validateEnvFrom(c.envFrom, path.child('envFrom')));
  errs.push(...validateVolumeMounts(c, ctx.volumes, path.child('volumeMounts')));
  errs.push(...validatePullPolicy(c.imagePullPolicy, path.child('imagePullPolicy')));
  errs.push(...validateResources(c.resources, path.child('resources')));
  return errs;
}

function validatePullPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  if (policy === undefined || policy === '') return [required(path, '')];
  return PULL_POLICIES.includes(policy) ? [] : [notSupported(path, policy, PULL_POLICIES)];
}

/** Upstream's validateContainerPorts. */
export function validateContainerPorts(ports: readonly ContainerPort[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const p = path.index(i);
    const name = port.name ?? '';
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) errs.push(...msgs.map((m) => invalid(p.child('name'), name, m)));
      else if (names.has(name)) errs.push(duplicate(p.child('name'), name));
      else names.add(name);
    }
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) errs.push(required(p.child('containerPort'), ''));
    else errs.push(...isValidPortNum(containerPort).map((m) => invalid(p.child('containerPort'), containerPort, m)));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0) errs.push(...isValidPortNum(hostPort).map((m) => invalid(p.child('hostPort'), hostPort, m)));
    const protocol = port.protocol ?? '';
    if (protocol === '') errs.push(required(p.child('protocol'), ''));
    else if (!PORT_PROTOCOLS.includes(protocol)) errs.push(notSupported(p.child('protocol'), protocol, PORT_PROTOCOLS));
  });
  return errs;
}

/** Upstream's checkHostPortConflicts: one host IP, protocol and port per pod. */
function checkHostPortConflicts(containers: readonly Container[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((port, pi) => {
      const hostPort = port.hostPort ?? 0;
      if (hostPort === 0) return;
      const key = `${port.hostIP ?? ''}/${port.protocol ?? ''}/${hostPort}`;
      if (seen.has(key)) errs.push(duplicate(path.index(ci).child('ports').index(pi).child('hostPort'), key));
      else seen.add(key);
    });
  });
  return errs;
}

/** Upstream's ValidateEnv, with the relaxed name rule that is on by default since 1.32. */
export function validateEnv(vars: readonly EnvVar[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (vars ?? []).forEach((env, i) => {
    const p = path.index(i);
    const name = env.name ?? '';
    if (name === '') errs.push(required(p.child('name'), ''));
    errs.push(...isRelaxedEnvVarName(name).map((m) => invalid(p.child('name'), name, m)));
    errs.push(...validateEnvVarValueFrom(env, p.child('valueFrom')));
  });
  return errs;
}

function validateEnvVarValueFrom(env: EnvVar, path: FieldPath): FieldError[] {
  const from = env.valueFrom;
  if (from === undefined || from === null) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  if (from.fieldRef) {
    sources++;
    const ref = from.fieldRef;
    const p = path.child('fieldRef');
    if (!ref.apiVersion) errs.push(required(p.child('apiVersion'), ''));
    else if (!ref.fieldPath) errs.push(required(p.child('fieldPath'), ''));
    else if (ref.apiVersion !== 'v1') {
      errs.push(invalid(p.child('fieldPath'), ref.fieldPath, `error converting fieldPath: unsupported pod version: ${ref.apiVersion}`));
    } else {
      const subscripted = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(ref.fieldPath);
      if (subscripted !== null) {
        const key = subscripted[2] ?? '';
        const kind = subscripted[1] === 'metadata.labels' ? 'labels' : 'annotations';
        const msgs = isQualifiedName(kind === 'annotations' ? key.toLowerCase() : key);
        errs.push(...msgs.map((m) => invalid(p.child('fieldPath'), ref.fieldPath, m)));
      } else if (!ENV_FIELD_PATHS.includes(ref.fieldPath)) {
        errs.push(notSupported(p.child('fieldPath'), ref.fieldPath, ENV_FIELD_PATHS));
      }
    }
  }
  if (from.resourceFieldRef) {
    sources++;
    const ref = from.resourceFieldRef;
    const p = path.child('resourceFieldRef');
    if (!ref.resource) errs.push(required(p.child('resource'), ''));
    else if (!RESOURCE_FIELD_REFS.includes(ref.resource) && !/^(limits|requests)\.hugepages-/.test(ref.resource)) {
      errs.push(notSupported(p.child('resource'), ref.resource, RESOURCE_FIELD_REFS));
    }
  }
  if (from.configMapKeyRef) {
    sources++;
    errs.push(...validateKeySelector(from.configMapKeyRef, path.child('configMapKeyRef')));
  }
  if (from.secretKeyRef) {
    sources++;
    errs.push(...validateKeySelector(from.secretKeyRef, path.child('secretKeyRef')));
  }
  if (sources === 0) {
    errs.push(invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  } else if ((env.value ?? '') !== '') {
    errs.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

function validateKeySelector(ref: { name?: string; key: string }, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = ref.name ?? '';
  errs.push(...isDNS1123Subdomain(name).map((m) => invalid(path.child('name'), name, m)));
  const key = ref.key ?? '';
  if (key === '') errs.push(required(path.child('key'), ''));
  else errs.push(...isConfigMapKey(key).map((m) => invalid(path.child('key'), key, m)));
  return errs;
}

function validateEnvFrom(sources: Container['envFrom'], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (sources ?? []).forEach((source, i) => {
    const p = path.index(i);
    const prefix = source.prefix ?? '';
    if (prefix !== '') errs.push(...isRelaxedEnvVarName(prefix).map((m) => invalid(p.child('prefix'), prefix, m)));
    let count = 0;
    if (source.configMapRef) {
      count++;
      const name = source.configMapRef.name ?? '';
      errs.push(...isDNS1123Subdomain(name).map((m) => invalid(p.child('configMapRef', 'name'), name, m)));
    }
    if (source.secretRef) {
      count++;
      const name = source.secretRef.name ?? '';
      errs.push(...isDNS1123Subdomain(name).map((m) => invalid(p.child('secretRef', 'name'), name, m)));
    }
    if (count === 0) errs.push(invalid(p, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) errs.push(invalid(p, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateVolumeMounts(c: Container, volumes: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const p = path.index(i);
    const name = m.name ?? '';
    if (name === '') errs.push(required(p.child('name'), ''));
    if (!volumes.has(name)) errs.push(notFound(p.child('name'), name));
    const mountPath = m.mountPath ?? '';
    if (mountPath === '') errs.push(required(p.child('mountPath'), ''));
    if (mountPoints.has(mountPath)) errs.push(invalid(p.child('mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if ((m.subPath ?? '') !== '') errs.push(...validateLocalDescendingPath(m.subPath!, path.child('subPath')));
  });
  return errs;
}

/** Upstream's validateLocalDescendingPath: relative, without `..` components. */
export function validateLocalDescendingPath(target: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(invalid(path, target, 'must be a relative path'));
  if (target.split(/[\\/]/).includes('..')) errs.push(invalid(path, target, "must not contain '..'"));
  return errs;
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
/** Upstream's IsNativeResource: no domain, or a kubernetes.io one. */
const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** Upstream's IsExtendedResourceName: a domain-prefixed name outside kubernetes.io, not `requests.*`. */
const isExtendedResource = (name: string): boolean =>
  !isNativeResource(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
/** Only native resources other than huge pages may be requested below their limit. */
const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !name.startsWith('hugepages-');

/** Upstream's ValidateContainerResources (names, quantities, requests within limits). */
export function validateResources(resources: ResourceRequirements | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const limits = (resources?.limits ?? {}) as Record<string, string | number>;
  const requests = (resources?.requests ?? {}) as Record<string, string | number>;
  const limPath = path.child('limits');
  const reqPath = path.child('requests');
  const limitValues = new Map<string, bigint>();
  for (const name of Object.keys(limits)) {
    const p = limPath.key(name);
    addAll(errs, validateContainerResourceName(name, p));
    const q = validateQuantity(name, limits[name]!, p, errs);
    if (q !== undefined) limitValues.set(name, q);
  }
  for (const name of Object.keys(requests)) {
    const value = requests[name]!;
    const p = reqPath.key(name);
    addAll(errs, validateContainerResourceName(name, p));
    const q = validateQuantity(name, value, p, errs);
    if (q === undefined) continue;
    const limit = limitValues.get(name);
    if (limit !== undefined) {
      if (q !== limit && !isOvercommitAllowed(name)) {
        // Upstream reports these on `requests` itself, not on the key, with canonical quantities.
        errs.push(invalid(reqPath, canonicalQuantity(String(value)), `must be equal to ${name} limit of ${canonicalQuantity(String(limits[name]))}`));
      } else if (q > limit) {
        errs.push(invalid(reqPath, canonicalQuantity(String(value)), `must be less than or equal to ${name} limit of ${canonicalQuantity(String(limits[name]))}`));
      }
    } else if (!isOvercommitAllowed(name) && !(name in limits)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
  }
  return errs;
}

function validateQuantity(name: string, value: string | number, path: FieldPath, errs: FieldError[]): bigint | undefined {
  const q = parseQuantityNanos(value);
  if (q === undefined) {
    errs.push(invalid(path, String(value), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
    return undefined;
  }
  if (q < 0n) errs.push(invalid(path, String(value), IS_NEGATIVE_ERROR_MSG));
  if (isExtendedResource(name) && q % 1_000_000_000n !== 0n) errs.push(invalid(path, String(value), 'must be an integer'));
  return q;
}

function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  // cpu, memory and ephemeral-storage are qualified names and standard: nothing to find.
  if (STANDARD_CONTAINER_RESOURCES.has(name)) return [];
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('hugepages-')) {
      errs.push(invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

function validateLifecycle(c: Container, path: FieldPath): FieldError[] {
  const lifecycle = c.lifecycle;
  if (lifecycle === undefined || lifecycle === null) return [];
  const errs: FieldError[] = [];
  if (lifecycle.postStart) errs.push(...validateHandler(lifecycle.postStart as Handler, path.child('lifecycle', 'postStart'), true));
  if (lifecycle.preStop) errs.push(...validateHandler(lifecycle.preStop as Handler, path.child('lifecycle', 'preStop'), true));
  return errs;
}

interface Handler {
  exec?: { command?: string[] };
  httpGet?: { path?: string; port: number | string; scheme?: string; httpHeaders?: { name: string }[] };
  tcpSocket?: { port: number | string };
  grpc?: { port: number };
  sleep?: { seconds: number };
}

function validateHandler(handler: Handler, path: FieldPath, lifecycle: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  const one = (name: string, validate: () => FieldError[]): void => {
    if (count > 0) errs.push(forbidden(path.child(name), 'may not specify more than 1 handler type'));
    else {
      count++;
      errs.push(...validate());
    }
  };
  if (handler.exec) one('exec', () => ((handler.exec!.command ?? []).length === 0 ? [required(path.child('exec', 'command'), '')] : []));
  if (handler.httpGet) {
    one('httpGet', () => {
      const h = handler.httpGet!;
      const p = path.child('httpGet');
      const out: FieldError[] = [];
      if ((h.path ?? '') === '') out.push(required(p.child('path'), ''));
      out.push(...validatePortNumOrName(h.port, p.child('port')));
      if (!HTTP_SCHEMES.includes(h.scheme ?? '')) out.push(notSupported(p.child('scheme'), h.scheme ?? '', HTTP_SCHEMES));
      for (const header of h.httpHeaders ?? []) out.push(...isHTTPHeaderName(header.name).map((m) => invalid(p.child('httpHeaders'), header.name, m)));
      return out;
    });
  }
  if (handler.tcpSocket) one('tcpSocket', () => validatePortNumOrName(handler.tcpSocket!.port, path.child('tcpSocket', 'port')));
  if (handler.grpc && !lifecycle) {
    one('grpc', () => isValidPortNum(handler.grpc!.port).map((m) => invalid(path.child('grpc', 'port'), handler.grpc!.port, m)));
  }
  if (handler.sleep && lifecycle) {
    one('sleep', () => {
      const s = handler.sleep!.seconds;
      return s < 0 ? [invalid(path.child('sleep', 'seconds'), s, 'must be non-negative')] : [];
    });
  }
  if (count === 0) errs.push(required(path, 'must specify a handler type'));
  return errs;
}

function validateProbe(probe: Probe, path: FieldPath): FieldError[] {
  const errs = validateHandler(probe as Handler, path, false);
  errs.push(...validateNonnegativeField(probe.initialDelaySeconds ?? 0, path.child('initialDelaySeconds')));
  errs.push(...validateNonnegativeField(probe.timeoutSeconds ?? 0, path.child('timeoutSeconds')));
  errs.push(...validateNonnegativeField(probe.periodSeconds ?? 0, path.child('periodSeconds')));
  errs.push(...validateNonnegativeField(probe.successThreshold ?? 0, path.child('successThreshold')));
  errs.push(...validateNonnegativeField(probe.failureThreshold ?? 0, path.child('failureThreshold')));
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace <= 0) {
    errs.push(invalid(path.child('terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
  }
  return errs;
}

function validateLivenessProbe(probe: Probe | undefined, path: FieldPath): FieldError[] {
  if (probe === undefined || probe === null) return [];
  const errs = validateProbe(probe, path);
  if ((probe.successThreshold ?? 0) !== 1) errs.push(invalid(path.child('successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  return errs;
}

function validateStartupProbe(probe: Probe | undefined, path: FieldPath): FieldError[] {
  return validateLivenessProbe(probe, path);
}

function validateReadinessProbe(probe: Probe | undefined, path: FieldPath): FieldError[] {
  if (probe === undefined || probe === null) return [];
  const errs = validateProbe(probe, path);
  if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds !== null) {
    errs.push(invalid(path.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
  }
  return errs;
}
