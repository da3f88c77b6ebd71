/**
 * Service validation with upstream's messages (pkg/apis/core/validation:
 * ValidateService, ValidateServiceUpdate, ValidateServiceStatusUpdate and
 * ValidateServiceClusterIPsRelatedFields), and the warnings of
 * pkg/api/service/warnings.go. Object metadata (the DNS-1035 name) is
 * validated by the generic store.
 *
 * IP and CIDR fields are validated as fields that predate strict validation
 * (upstream 1.33 with StrictIPCIDRValidation off): non-canonical forms are
 * accepted with a warning, and a value the old object already had is always
 * accepted.
 */
import {
  duplicate,
  forbidden,
  internalError,
  invalid,
  notSupported,
  required,
  FieldPath,
  type FieldError,
} from '../../../../machinery/field-errors.js';
import { goQuote, goStringSlice, goSyntax } from '../../../../machinery/validation/go-text.js';
import { isValidCIDRForLegacyField, isValidIPForLegacyField, warningsForCIDR, warningsForIP } from '../../../../machinery/validation/ip-addresses.js';
import { isV4Mapped, parseIP } from '../../../../machinery/validation/ip-parse.js';
import { validateLabels } from '../../../../machinery/validation/labels.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../../machinery/validation/names.js';
import { isValidPortNum, validatePortNumOrName } from '../../../../machinery/validation/values.js';
import {
  CLUSTER_IP_NONE,
  externallyAccessible,
  isHeadless,
  needsHealthCheck,
  typeOf,
  type IPFamily,
  type ServiceObject,
  type ServicePort,
} from './service-helpers.js';

const SUPPORTED_SESSION_AFFINITY = ['ClientIP', 'None'];
const SUPPORTED_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const SUPPORTED_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SUPPORTED_TRAFFIC_POLICIES = ['Cluster', 'Local'];
const SUPPORTED_IP_FAMILIES = ['IPv4', 'IPv6'];
const SUPPORTED_IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const SUPPORTED_TRAFFIC_DISTRIBUTION = ['PreferClose'];
const SUPPORTED_LOAD_BALANCER_IP_MODES = ['Proxy', 'VIP'];
/** Upstream's MaxClientIPServiceAffinitySeconds (one day). */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

const TOPOLOGY_AWARE_HINTS = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const LOAD_BALANCER_SOURCE_RANGES = 'service.beta.kubernetes.io/load-balancer-source-ranges';

const spec = FieldPath.root('spec');

/** The IP family of an address as upstream tells it (an IPv4-mapped IPv6 address is IPv4), or undefined when it is no IP. */
export function ipFamilyOf(ip: string): IPFamily | undefined {
  const parsed = parseIP(ip);
  if (parsed === undefined) return undefined;
  return isV4Mapped(parsed.bytes) ? 'IPv4' : 'IPv6';
}

const stringSlice = (values: readonly string[] | undefined): unknown => goSyntax(goStringSlice(values ?? null));
const familySlice = (values: readonly string[] | undefined): unknown =>
  goSyntax(values === undefined ? '[]core.IPFamily(nil)' : `[]core.IPFamily{${values.map(goQuote).join(', ')}}`);
/** A pointer field: its value, or null when unset. */
const pointer = (value: string | undefined | null): unknown => value ?? null;

/** A service port as `%#v` prints the internal struct (the key of a duplicate port). */
function goServicePortKey(protocol: string, port: number): unknown {
  return goSyntax(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

/** ValidateService: every field of a service, new or updated. */
export function validateService(service: ServiceObject, old?: ServiceObject): FieldError[] {
  const errs: FieldError[] = [];
  const s = service.spec ?? {};
  const annotations = service.metadata.annotations ?? {};
  const type = typeOf(service);

  const hints = annotations[TOPOLOGY_AWARE_HINTS];
  const mode = annotations[TOPOLOGY_MODE];
  if (hints !== undefined && mode !== undefined && hints !== mode) {
    errs.push(
      invalid(FieldPath.root('metadata').child('annotations').key(TOPOLOGY_MODE), mode, `must match annotations[${TOPOLOGY_AWARE_HINTS}] when both are specified`),
    );
  }

  const ports = s.ports ?? [];
  if (ports.length === 0 && !isHeadless(service) && type !== 'ExternalName') errs.push(required(spec.child('ports')));
  switch (type) {
    case 'LoadBalancer':
      if (isHeadless(service)) errs.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs![0], "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (isHeadless(service)) errs.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs![0], "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if ((s.clusterIPs?.length ?? 0) > 0) errs.push(forbidden(spec.child('clusterIPs'), 'may not be set for ExternalName services'));
      if ((s.ipFamilies?.length ?? 0) > 0) errs.push(forbidden(spec.child('ipFamilies'), 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy != null) errs.push(forbidden(spec.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
      // The value (a CNAME) may have a trailing dot to denote it as fully qualified.
      const cname = (s.externalName ?? '').replace(/\.$/, '');
      if (cname.length > 0) errs.push(...isDNS1123Subdomain(cname).map((m) => invalid(spec.child('externalName'), cname, m)));
      else errs.push(required(spec.child('externalName')));
      break;
    }
    default:
      break;
  }

  const names = new Set<string>();
  ports.forEach((port, i) => errs.push(...validateServicePort(port, ports.length > 1, names, spec.child('ports').index(i))));

  if (s.selector != null) errs.push(...validateLabels(s.selector, spec.child('selector')));

  const affinity = s.sessionAffinity ?? '';
  if (affinity === '') errs.push(required(spec.child('sessionAffinity')));
  else if (!SUPPORTED_SESSION_AFFINITY.includes(affinity)) errs.push(notSupported(spec.child('sessionAffinity'), affinity, SUPPORTED_SESSION_AFFINITY));
  if (affinity === 'ClientIP') errs.push(...validateClientIPAffinityConfig(service, spec.child('sessionAffinityConfig')));
  else if (affinity === 'None' && s.sessionAffinityConfig != null) {
    errs.push(forbidden(spec.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }

  errs.push(...validateServiceClusterIPsRelatedFields(service, old));

  const oldExternalIPs = old?.spec?.externalIPs ?? [];
  (s.externalIPs ?? []).forEach((ip, i) => {
    const path = spec.child('externalIPs').index(i);
    const ipErrs = isValidIPForLegacyField(path, ip, { strict: false, validOld: oldExternalIPs });
    errs.push(...(ipErrs.length > 0 ? ipErrs : validateNonSpecialIP(ip, path)));
  });

  if (type === '') errs.push(required(spec.child('type')));
  else if (!SUPPORTED_TYPES.includes(type)) errs.push(notSupported(spec.child('type'), type, SUPPORTED_TYPES));

  if (type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if ((port.nodePort ?? 0) !== 0) errs.push(forbidden(spec.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }

  // Duplicate node ports and ports, by (protocol, port).
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    const nodePort = port.nodePort ?? 0;
    if (nodePort === 0) return;
    const key = `${port.protocol ?? ''}/${nodePort}`;
    if (nodePorts.has(key)) errs.push(duplicate(spec.child('ports').index(i).child('nodePort'), nodePort));
    nodePorts.add(key);
  });
  const seenPorts = new Set<string>();
  ports.forEach((port, i) => {
    const key = `${port.protocol ?? ''}/${port.port}`;
    if (seenPorts.has(key)) errs.push(duplicate(spec.child('ports').index(i), goServicePortKey(port.protocol ?? '', port.port)));
    seenPorts.add(key);
  });

  const sourceRanges = s.loadBalancerSourceRanges ?? [];
  if (sourceRanges.length > 0) {
    // Upstream names this field with a capital L.
    const path = spec.child('LoadBalancerSourceRanges');
    if (type !== 'LoadBalancer') errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    const oldRanges = old?.spec?.loadBalancerSourceRanges ?? [];
    sourceRanges.forEach((value, i) => {
      // Values may be space-padded, a leftover of the annotation.
      errs.push(...isValidCIDRForLegacyField(path.index(i), value.trim(), { strict: false, validOld: oldRanges }));
    });
  } else if (annotations[LOAD_BALANCER_SOURCE_RANGES] !== undefined) {
    const path = FieldPath.root('metadata').child('annotations').key(LOAD_BALANCER_SOURCE_RANGES);
    if (type !== 'LoadBalancer') errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    const value = annotations[LOAD_BALANCER_SOURCE_RANGES]!.trim();
    if (value !== '') {
      for (const cidr of value.split(',')) errs.push(...isValidCIDRForLegacyField(path, cidr.trim(), { strict: false }));
    }
  }

  if (s.allocateLoadBalancerNodePorts != null && type !== 'LoadBalancer') {
    errs.push(forbidden(spec.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts == null) {
    // Upstream's path has no `spec.` here.
    errs.push(required(FieldPath.root('allocateLoadBalancerNodePorts')));
  }

  errs.push(...validateLoadBalancerClass(undefined, service));
  errs.push(...validateExternalTrafficPolicy(service));

  const internal = s.internalTrafficPolicy;
  if (internal == null) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') errs.push(required(spec.child('internalTrafficPolicy')));
  } else if (!SUPPORTED_TRAFFIC_POLICIES.includes(internal)) {
    errs.push(notSupported(spec.child('internalTrafficPolicy'), internal, SUPPORTED_TRAFFIC_POLICIES));
  }

  if (s.trafficDistribution != null && !SUPPORTED_TRAFFIC_DISTRIBUTION.includes(s.trafficDistribution)) {
    errs.push(notSupported(spec.child('trafficDistribution'), s.trafficDistribution, SUPPORTED_TRAFFIC_DISTRIBUTION));
  }
  return errs;
}

function validateServicePort(port: ServicePort, requireName: boolean, names: Set<string>, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = port.name ?? '';
  if (requireName && name === '') {
    errs.push(required(path.child('name')));
  } else if (name !== '') {
    errs.push(...isDNS1123Label(name).map((m) => invalid(path.child('name'), name, m)));
    if (names.has(name)) errs.push(duplicate(path.child('name'), name));
    else names.add(name);
  }
  const number = port.port ?? 0;
  errs.push(...isValidPortNum(number).map((m) => invalid(path.child('port'), number, m)));
  const protocol = port.protocol ?? '';
  if (protocol === '') errs.push(required(path.child('protocol')));
  else if (!SUPPORTED_PROTOCOLS.includes(protocol)) errs.push(notSupported(path.child('protocol'), protocol, SUPPORTED_PROTOCOLS));
  errs.push(...validatePortNumOrName(port.targetPort ?? 0, path.child('targetPort')));
  if (port.appProtocol != null) errs.push(...isQualifiedName(port.appProtocol).map((m) => invalid(path.child('appProtocol'), port.appProtocol, m)));
  return errs;
}

function validateClientIPAffinityConfig(service: ServiceObject, path: FieldPath): FieldError[] {
  const detail = 'when session affinity type is ClientIP';
  const config = service.spec?.sessionAffinityConfig;
  if (config == null) return [required(path, detail)];
  if (config.clientIP == null) return [required(path.child('clientIP'), detail)];
  const timeout = config.clientIP.timeoutSeconds;
  if (timeout == null) return [required(path.child('clientIP').child('timeoutSeconds'), detail)];
  if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
    return [invalid(path.child('clientIP').child('timeoutSeconds'), timeout, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`)];
  }
  return [];
}

/** ValidateNonSpecialIP: an external IP may not be unspecified, loopback or link-local. */
function validateNonSpecialIP(ip: string, path: FieldPath): FieldError[] {
  const parsed = parseIP(ip);
  if (parsed === undefined) return [invalid(path, ip, 'must be a valid IP address')];
  const b = parsed.bytes;
  const v4 = isV4Mapped(b);
  const errs: FieldError[] = [];
  if (v4 ? b[12] === 0 && b[13] === 0 && b[14] === 0 && b[15] === 0 : b.every((x) => x === 0)) {
    errs.push(invalid(path, ip, `may not be unspecified (${ip})`));
  }
  if (v4 ? b[12] === 127 : b.subarray(0, 15).every((x) => x === 0) && b[15] === 1) {
    errs.push(invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  }
  if (v4 ? b[12] === 169 && b[13] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) {
    errs.push(invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (v4 ? b[12] === 224 && b[13] === 0 && b[14] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02) {
    errs.push(invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

function validateLoadBalancerClass(old: ServiceObject | undefined, service: ServiceObject): FieldError[] {
  const errs: FieldError[] = [];
  const path = spec.child('loadBalancerClass');
  const value = service.spec?.loadBalancerClass;
  if (old !== undefined && typeOf(old) === 'LoadBalancer' && typeOf(service) === 'LoadBalancer' && (old.spec?.loadBalancerClass ?? null) !== (value ?? null)) {
    errs.push(invalid(path, pointer(value), 'may not change once set'));
  }
  if (typeOf(service) === 'LoadBalancer') {
    if (value != null) errs.push(...isQualifiedName(value).map((m) => invalid(path, value, m)));
  } else if (value != null) {
    errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

function validateExternalTrafficPolicy(service: ServiceObject): FieldError[] {
  const errs: FieldError[] = [];
  const policy = service.spec?.externalTrafficPolicy ?? '';
  if (!externallyAccessible(service)) {
    if (policy !== '') errs.push(invalid(spec.child('externalTrafficPolicy'), policy, 'may only be set for externally-accessible services'));
  } else if (policy === '') {
    errs.push(required(spec.child('externalTrafficPolicy')));
  } else if (!SUPPORTED_TRAFFIC_POLICIES.includes(policy)) {
    errs.push(notSupported(spec.child('externalTrafficPolicy'), policy, SUPPORTED_TRAFFIC_POLICIES));
  }
  const healthCheckNodePort = service.spec?.healthCheckNodePort ?? 0;
  const path = spec.child('healthCheckNodePort');
  if (!needsHealthCheck(service)) {
    if (healthCheckNodePort !== 0) {
      errs.push(invalid(path, healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (healthCheckNodePort === 0) {
    errs.push(required(path));
  } else {
    errs.push(...isValidPortNum(healthCheckNodePort).map((m) => invalid(path, healthCheckNodePort, m)));
  }
  return errs;
}

/**
 * ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs agree,
 * ipFamilies and ipFamilyPolicy hold supported values, every clusterIP is an
 * IP (or a lone `None`), at most two, one of each family, each matching its
 * ipFamilies entry. Also run, loosely, before allocation.
 */
export function validateServiceClusterIPsRelatedFields(service: ServiceObject, old?: ServiceObject): FieldError[] {
  if (typeOf(service) === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const s = service.spec ?? {};
  const clusterIP = s.clusterIP ?? '';
  const clusterIPs = s.clusterIPs ?? [];
  const clusterIPsPath = spec.child('clusterIPs');
  if (clusterIP !== '') {
    if (clusterIPs.length === 0) errs.push(required(clusterIPsPath));
    else if (clusterIPs[0] !== clusterIP) errs.push(invalid(clusterIPsPath, stringSlice(clusterIPs), 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errs.push(invalid(clusterIPsPath, stringSlice(clusterIPs), 'must be empty when `clusterIP` is not specified'));
  }

  const families = s.ipFamilies ?? [];
  const seen = new Set<string>();
  families.forEach((family, i) => {
    if (!SUPPORTED_IP_FAMILIES.includes(family)) errs.push(notSupported(spec.child('ipFamilies').index(i), family, SUPPORTED_IP_FAMILIES));
    if (seen.has(family)) errs.push(duplicate(spec.child('ipFamilies').index(i), family));
    seen.add(family);
  });
  if (s.ipFamilyPolicy != null && !SUPPORTED_IP_FAMILY_POLICIES.includes(s.ipFamilyPolicy)) {
    errs.push(notSupported(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy, SUPPORTED_IP_FAMILY_POLICIES));
  }

  let hasInvalidIPs = false;
  const oldIPs = old?.spec?.clusterIPs ?? [];
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (clusterIPs.length > 1) {
        hasInvalidIPs = true;
        errs.push(invalid(clusterIPsPath, stringSlice(clusterIPs), "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrs = isValidIPForLegacyField(clusterIPsPath.index(i), ip, { strict: false, validOld: oldIPs });
    if (ipErrs.length > 0) hasInvalidIPs = true;
    errs.push(...ipErrs);
  });
  if (clusterIPs.length > 2) errs.push(invalid(clusterIPsPath, stringSlice(clusterIPs), 'may only hold up to 2 values'));
  if (hasInvalidIPs) return errs;

  if (clusterIPs.length > 1) {
    const found = new Set(clusterIPs.map(ipFamilyOf));
    if (found.has(undefined)) errs.push(internalError(clusterIPsPath, 'failed to check for dual stack'));
    if (!(found.has('IPv4') && found.has('IPv6'))) {
      errs.push(invalid(clusterIPsPath, stringSlice(clusterIPs), 'may specify no more than one IP for each IP family'));
    }
  }
  if (!isHeadless(service) && clusterIPs.length > 0 && families.length > 0) {
    clusterIPs.forEach((ip, i) => {
      if (i > families.length - 1) return;
      const isV6 = ipFamilyOf(ip) === 'IPv6';
      if (families[i] === 'IPv4' && isV6) errs.push(invalid(clusterIPsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !isV6) errs.push(invalid(clusterIPsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** ValidateServiceUpdate: the primary clusterIP and ipFamily never change, nor a load balancer's class or health check port. */
export function validateServiceUpdate(service: ServiceObject, old: ServiceObject): FieldError[] {
  return [
    ...validateUpgradeDowngradeClusterIPs(old, service),
    ...validateUpgradeDowngradeIPFamilies(old, service),
    ...validateLoadBalancerClass(old, service),
    ...validateExternalTrafficFieldsUpdate(old, service),
    ...validateService(service, old),
  ];
}

function validateUpgradeDowngradeClusterIPs(old: ServiceObject, service: ServiceObject): FieldError[] {
  if (typeOf(service) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  if (isHeadless(old) && isHeadless(service)) return [];
  const errs: FieldError[] = [];
  const oldIPs = old.spec?.clusterIPs ?? [];
  const newIPs = service.spec?.clusterIPs ?? [];
  const first = spec.child('clusterIPs').index(0);
  const value = stringSlice(service.spec?.clusterIPs);
  if (oldIPs.length === newIPs.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== newIPs[i]) errs.push(invalid(spec.child('clusterIPs').index(i), value, 'may not change once set'));
    });
  } else if (oldIPs.length > newIPs.length) {
    if (newIPs.length === 0) errs.push(invalid(first, value, 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && newIPs.length > 0 && newIPs[0] !== oldIPs[0]) errs.push(invalid(first, value, 'may not change once set'));
    if (newIPs.length === 1 && service.spec?.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalid(spec.child('ipFamilyPolicy'), pointer(service.spec?.ipFamilyPolicy), "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
    errs.push(invalid(first, value, 'may not change once set'));
  }
  return errs;
}

function validateUpgradeDowngradeIPFamilies(old: ServiceObject, service: ServiceObject): FieldError[] {
  if (typeOf(service) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  // Changing to or from headless, or headless both times: families may change.
  if (isHeadless(service) !== isHeadless(old) || isHeadless(service)) return [];
  const errs: FieldError[] = [];
  const oldFamilies = old.spec?.ipFamilies ?? [];
  const newFamilies = service.spec?.ipFamilies ?? [];
  const first = spec.child('ipFamilies').index(0);
  if (oldFamilies.length === newFamilies.length) {
    oldFamilies.forEach((family, i) => {
      if (family !== newFamilies[i]) errs.push(invalid(first, familySlice(service.spec?.ipFamilies), 'may not change once set'));
    });
  } else if (oldFamilies.length > newFamilies.length) {
    if ((service.spec?.clusterIPs?.length ?? 0) === 0) errs.push(invalid(first, familySlice(service.spec?.ipFamilies), 'primary ipFamily can not be unset'));
    if (newFamilies.length > 0 && newFamilies[0] !== oldFamilies[0]) errs.push(invalid(first, stringSlice(service.spec?.clusterIPs), 'may not change once set'));
    if (newFamilies.length === 1 && service.spec?.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalid(spec.child('ipFamilyPolicy'), pointer(service.spec?.ipFamilyPolicy), "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldFamilies.length > 0 && newFamilies.length > 0 && newFamilies[0] !== oldFamilies[0]) {
    errs.push(invalid(first, stringSlice(service.spec?.clusterIPs), 'may not change once set'));
  }
  return errs;
}

function validateExternalTrafficFieldsUpdate(old: ServiceObject, service: ServiceObject): FieldError[] {
  if (needsHealthCheck(old) && needsHealthCheck(service) && (service.spec?.healthCheckNodePort ?? 0) !== (old.spec?.healthCheckNodePort ?? 0)) {
    return [forbidden(spec.child('healthCheckNodePort'), 'field is immutable')];
  }
  return [];
}

/** ValidateServiceStatusUpdate: the load balancer status (ingress IPs, hostnames, IP modes). */
export function validateServiceStatusUpdate(service: ServiceObject, old: ServiceObject): FieldError[] {
  const errs: FieldError[] = [];
  const ingressPath = FieldPath.root('status').child('loadBalancer').child('ingress');
  const ingresses = service.status?.loadBalancer?.ingress ?? [];
  if (typeOf(service) !== 'LoadBalancer' && ingresses.length !== 0) {
    return [forbidden(ingressPath, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  const oldIPs = (old.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? '').filter((ip) => ip !== '');
  ingresses.forEach((ingress, i) => {
    const path = ingressPath.index(i);
    const ip = ingress.ip ?? '';
    if (ip !== '') errs.push(...isValidIPForLegacyField(path.child('ip'), ip, { strict: false, validOld: oldIPs }));
    if (ingress.ipMode == null) {
      if (ip !== '') errs.push(required(path.child('ipMode'), 'must be specified when `ip` is set'));
    } else if (ip === '') {
      errs.push(forbidden(path.child('ipMode'), 'may not be specified when `ip` is not set'));
    } else if (!SUPPORTED_LOAD_BALANCER_IP_MODES.includes(ingress.ipMode)) {
      errs.push(notSupported(path.child('ipMode'), ingress.ipMode, SUPPORTED_LOAD_BALANCER_IP_MODES));
    }
    const hostname = ingress.hostname ?? '';
    if (hostname !== '') {
      errs.push(...isDNS1123Subdomain(hostname).map((m) => invalid(path.child('hostname'), hostname, m)));
      if (parseIP(hostname) !== undefined) errs.push(invalid(path.child('hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** GetWarningsForService: deprecated annotations, non-canonical IPs and CIDRs, fields the type ignores. */
export function serviceWarnings(service: ServiceObject): string[] {
  const warnings: string[] = [];
  const s = service.spec ?? {};
  if (service.metadata.annotations?.[TOPOLOGY_AWARE_HINTS] !== undefined) {
    warnings.push(`annotation ${TOPOLOGY_AWARE_HINTS} is deprecated, please use ${TOPOLOGY_MODE} instead`);
  }
  if ((s.clusterIP ?? '') !== '' && s.clusterIP !== CLUSTER_IP_NONE) {
    (s.clusterIPs ?? []).forEach((ip, i) => warnings.push(...warningsForIP(spec.child('clusterIPs').index(i), ip)));
  }
  (s.externalIPs ?? []).forEach((ip, i) => warnings.push(...warningsForIP(spec.child('externalIPs').index(i), ip)));
  if ((s.loadBalancerIP ?? '') !== '') warnings.push(...warningsForIP(spec.child('loadBalancerIP'), s.loadBalancerIP!));
  (s.loadBalancerSourceRanges ?? []).forEach((cidr, i) => warnings.push(...warningsForCIDR(spec.child('loadBalancerSourceRanges').index(i), cidr)));
  if (typeOf(service) === 'ExternalName' && (s.externalIPs?.length ?? 0) > 0) {
    warnings.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  }
  if (typeOf(service) !== 'ExternalName' && (s.externalName ?? '') !== '') {
    warnings.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  }
  return warnings;
}
