/**
 * networking.k8s.io/v1 validation, as upstream's pkg/apis/networking/validation:
 * Ingress (rules, paths and their pathType, backends, hosts, TLS),
 * IngressClass (controller required and immutable, parameters) and
 * NetworkPolicy (ports, protocols, peers, ipBlock CIDRs, policyTypes), with
 * upstream's messages. ObjectMeta is checked by the generic store.
 */
import type { HTTPIngressPath, IPBlock, Ingress, IngressBackend, IngressClass, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import { FieldPath, RawValue, forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../../machinery/field-errors.js';
import { semanticDeepEqual, validateImmutableField } from '../../../machinery/validation/immutable.js';
import { isValidCIDRForLegacyField, isValidIPForLegacyField, warningsForCIDR } from '../../../machinery/validation/ip-addresses.js';
import { maskBytes, parseCIDR, parseIP, type ParsedCIDR } from '../../../machinery/validation/ip-parse.js';
import { labelSelectorHasInvalidLabelValue, validateLabelSelector, type LabelSelectorValidationOptions } from '../../../machinery/validation/labels.js';
import {
  isDNS1123Subdomain,
  isDomainPrefixedPath,
  isValidPathSegmentName,
  isWildcardDNS1123Subdomain,
  nameIsDNSSubdomain,
  validateNamespaceName,
  validateServiceName,
} from '../../../machinery/validation/names.js';
import { isValidPortName, isValidPortNum } from '../../../machinery/validation/values.js';

/** The legacy annotation an Ingress may carry instead of spec.ingressClassName. */
export const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';
const MAX_LEN_INGRESS_CLASS_CONTROLLER = 250;
const SUPPORTED_PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

interface IngressOptions {
  /** An update may keep a TLS secret name the old object already had invalid. */
  readonly allowInvalidSecretName: boolean;
  /** An update may keep invalid rule values under a wildcard host, as the old object had them. */
  readonly allowInvalidWildcardHostRule: boolean;
}

// ---------------------------------------------------------------- Ingress

export function validateIngress(ing: Ingress): FieldError[] {
  const errs = validateIngressSpec(ing, { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false });
  const annotation = ing.metadata?.annotations?.[ANNOTATION_INGRESS_CLASS];
  const className = ing.spec?.ingressClassName;
  if (annotation !== undefined && className !== undefined && className !== null && annotation !== className) {
    // Upstream names the path without `metadata.`.
    errs.push(invalid(FieldPath.root('annotations').child(ANNOTATION_INGRESS_CLASS), annotation, 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

export function validateIngressUpdate(ing: Ingress, old: Ingress): FieldError[] {
  return validateIngressSpec(ing, {
    allowInvalidSecretName: (old.spec?.tls ?? []).some((t) => tlsSecretNameErrors(t.secretName ?? '').length > 0),
    allowInvalidWildcardHostRule: (old.spec?.rules ?? []).some(
      (r) => (r.host ?? '').includes('*') && r.http !== undefined && validateHTTPRule(r.http.paths, FieldPath.root('x')).length > 0,
    ),
  });
}

/** The /status update: the load balancer's addresses. */
export function validateIngressStatusUpdate(ing: Ingress, old: Ingress): FieldError[] {
  const errs: FieldError[] = [];
  const existingIPs = (old.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? '').filter((ip) => ip !== '');
  (ing.status?.loadBalancer?.ingress ?? []).forEach((lb, i) => {
    const path = FieldPath.root('status').child('loadBalancer').child('ingress').index(i);
    const ip = lb.ip ?? '';
    if (ip !== '') errs.push(...isValidIPForLegacyField(path.child('ip'), ip, { strict: false, validOld: existingIPs }));
    const hostname = lb.hostname ?? '';
    if (hostname !== '') {
      errs.push(...isDNS1123Subdomain(hostname).map((m) => invalid(path.child('hostname'), hostname, m)));
      if (parseIP(hostname) !== undefined) errs.push(invalid(path.child('hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

function validateIngressSpec(ing: Ingress, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  const spec = ing.spec ?? {};
  const path = FieldPath.root('spec');
  const rules = spec.rules ?? [];
  if (rules.length === 0 && (spec.defaultBackend === undefined || spec.defaultBackend === null)) {
    // Upstream passes the (nil) rules slice, which Go prints with %#v.
    errs.push(invalid(path, new RawValue('[]networking.IngressRule(nil)'), 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend !== undefined && spec.defaultBackend !== null) errs.push(...validateBackend(spec.defaultBackend, path.child('defaultBackend')));
  rules.forEach((rule, i) => {
    const rulePath = path.child('rules').index(i);
    const host = rule.host ?? '';
    let wildcard = false;
    if (host !== '') {
      if (parseIP(host) !== undefined) errs.push(invalid(rulePath.child('host'), host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        errs.push(...isWildcardDNS1123Subdomain(host).map((m) => invalid(rulePath.child('host'), host, m)));
        wildcard = true;
      } else {
        errs.push(...isDNS1123Subdomain(host).map((m) => invalid(rulePath.child('host'), host, m)));
      }
    }
    if ((!wildcard || !opts.allowInvalidWildcardHostRule) && rule.http !== undefined && rule.http !== null) {
      errs.push(...validateHTTPRule(rule.http.paths, rulePath.child('http')));
    }
  });
  (spec.tls ?? []).forEach((tls, i) => {
    const tlsPath = path.child('tls').index(i);
    (tls.hosts ?? []).forEach((host, j) => {
      const check = host.includes('*') ? isWildcardDNS1123Subdomain : isDNS1123Subdomain;
      errs.push(...check(host).map((m) => invalid(tlsPath.child('hosts').index(j), host, m)));
    });
    if (!opts.allowInvalidSecretName) {
      const secret = tls.secretName ?? '';
      errs.push(...tlsSecretNameErrors(secret).map((m) => invalid(tlsPath.child('secretName'), secret, m)));
    }
  });
  const className = spec.ingressClassName;
  if (className !== undefined && className !== null) {
    errs.push(...nameIsDNSSubdomain(className, false).map((m) => invalid(path.child('ingressClassName'), className, m)));
  }
  return errs;
}

function tlsSecretNameErrors(name: string): string[] {
  return name === '' ? [] : nameIsDNSSubdomain(name, false);
}

function validateHTTPRule(paths: readonly HTTPIngressPath[] | undefined | null, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if ((paths ?? []).length === 0) errs.push(required(path.child('paths')));
  (paths ?? []).forEach((p, i) => errs.push(...validateHTTPPath(p, path.child('paths').index(i))));
  return errs;
}

function validateHTTPPath(p: HTTPIngressPath, path: FieldPath): FieldError[] {
  // v1 has no default pathType: a path without one is refused.
  if (p.pathType === undefined || p.pathType === null) return [required(path.child('pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = p.path ?? '';
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(invalid(path.child('path'), value, 'must be an absolute path'));
      for (const seq of INVALID_PATH_SEQUENCES) {
        if (value.includes(seq)) errs.push(invalid(path.child('path'), value, `must not contain '${seq}'`));
      }
      for (const suffix of INVALID_PATH_SUFFIXES) {
        if (value.endsWith(suffix)) errs.push(invalid(path.child('path'), value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/')) errs.push(invalid(path.child('path'), value, 'must be an absolute path'));
      break;
    default:
      errs.push(notSupported(path.child('pathType'), p.pathType, SUPPORTED_PATH_TYPES));
  }
  errs.push(...validateBackend(p.backend ?? {}, path.child('backend')));
  return errs;
}

function validateBackend(backend: IngressBackend, path: FieldPath): FieldError[] {
  const resource = backend.resource ?? undefined;
  const service = backend.service ?? undefined;
  if (resource !== undefined && service !== undefined) return [invalid(path, '', 'cannot set both resource and service backends')];
  const errs: FieldError[] = [];
  if (resource !== undefined) {
    const rp = path.child('resource');
    if (resource.apiGroup !== undefined && resource.apiGroup !== null) {
      const group = resource.apiGroup;
      errs.push(...isDNS1123Subdomain(group).map((m) => invalid(rp.child('apiGroup'), group, m)));
    }
    errs.push(...pathSegmentField(resource.kind ?? '', rp.child('kind')));
    errs.push(...pathSegmentField(resource.name ?? '', rp.child('name')));
    return errs;
  }
  if (service === undefined) return [invalid(path, '', 'resource or service backend is required')];
  const name = service.name ?? '';
  const namePath = path.child('service').child('name');
  if (name === '') errs.push(required(namePath));
  else errs.push(...validateServiceName(name, false).map((m) => invalid(namePath, name, m)));
  const portName = service.port?.name ?? '';
  const portNumber = service.port?.number ?? 0;
  const portPath = path.child('service').child('port');
  if (portName !== '' && portNumber !== 0) errs.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') errs.push(...isValidPortName(portName).map((m) => invalid(portPath.child('name'), portName, m)));
  else if (portNumber !== 0) errs.push(...isValidPortNum(portNumber).map((m) => invalid(portPath.child('number'), portNumber, m)));
  else errs.push(required(path, 'port name or number is required'));
  return errs;
}

function pathSegmentField(value: string, path: FieldPath): FieldError[] {
  if (value === '') return [required(path)];
  return isValidPathSegmentName(value).map((m) => invalid(path, value, m));
}

// ---------------------------------------------------------------- IngressClass

export function validateIngressClass(ic: IngressClass): FieldError[] {
  const errs: FieldError[] = [];
  const spec = ic.spec ?? {};
  const path = FieldPath.root('spec');
  const controller = spec.controller ?? '';
  if (controller === '') {
    errs.push(required(path.child('controller')));
  } else {
    if (Buffer.byteLength(controller, 'utf8') > MAX_LEN_INGRESS_CLASS_CONTROLLER) errs.push(tooLong(path.child('controller'), '', MAX_LEN_INGRESS_CLASS_CONTROLLER));
    errs.push(...isDomainPrefixedPath(path.child('controller'), controller));
  }
  const params = spec.parameters;
  if (params !== undefined && params !== null) {
    const pp = path.child('parameters');
    if (params.apiGroup !== undefined && params.apiGroup !== null) {
      const group = params.apiGroup;
      errs.push(...isDNS1123Subdomain(group).map((m) => invalid(pp.child('apiGroup'), group, m)));
    }
    errs.push(...pathSegmentField(params.kind ?? '', pp.child('kind')));
    errs.push(...pathSegmentField(params.name ?? '', pp.child('name')));
    const scope = params.scope;
    if (scope === undefined || scope === null) {
      errs.push(required(pp.child('scope')));
    } else if (scope !== 'Cluster' && scope !== 'Namespace') {
      errs.push(notSupported(pp.child('scope'), scope, ['Cluster', 'Namespace']));
    } else if (scope === 'Namespace') {
      const ns = params.namespace;
      if (ns === undefined || ns === null) errs.push(required(pp.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
      else errs.push(...validateNamespaceName(ns, false).map((m) => invalid(pp.child('namespace'), ns, m)));
    } else if (params.namespace !== undefined && params.namespace !== null) {
      errs.push(forbidden(pp.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
    }
  }
  return errs;
}

export function validateIngressClassUpdate(ic: IngressClass, old: IngressClass): FieldError[] {
  return [
    ...validateImmutableField(ic.spec?.controller ?? '', old.spec?.controller ?? '', FieldPath.root('spec').child('controller')),
    ...validateIngressClass(ic),
  ];
}

// ---------------------------------------------------------------- NetworkPolicy

interface PolicyOptions {
  readonly selector: LabelSelectorValidationOptions;
  /** CIDRs the old object already had, accepted even if they no longer validate. */
  readonly existingCIDRs: readonly string[];
}

export function validateNetworkPolicy(np: NetworkPolicy): FieldError[] {
  return validateNetworkPolicySpec(np, { selector: {}, existingCIDRs: [] });
}

export function validateNetworkPolicyUpdate(np: NetworkPolicy, old: NetworkPolicy): FieldError[] {
  const existingCIDRs: string[] = [];
  const peers = [...(old.spec?.ingress ?? []).flatMap((r) => r.from ?? []), ...(old.spec?.egress ?? []).flatMap((r) => r.to ?? [])];
  for (const peer of peers) {
    if (peer.ipBlock) existingCIDRs.push(peer.ipBlock.cidr, ...(peer.ipBlock.except ?? []));
  }
  return validateNetworkPolicySpec(np, {
    selector: { allowInvalidLabelValueInSelector: labelSelectorHasInvalidLabelValue(old.spec?.podSelector) },
    existingCIDRs,
  });
}

function validateNetworkPolicySpec(np: NetworkPolicy, opts: PolicyOptions): FieldError[] {
  const spec = np.spec ?? ({} as NonNullable<NetworkPolicy['spec']>);
  const path = FieldPath.root('spec');
  const errs = validateLabelSelector(spec.podSelector, opts.selector, path.child('podSelector'));
  const rules = (name: 'ingress' | 'egress', peers: 'from' | 'to'): void => {
    ((spec[name] ?? []) as { ports?: NetworkPolicyPort[]; from?: NetworkPolicyPeer[]; to?: NetworkPolicyPeer[] }[]).forEach((rule, i) => {
      const rp = path.child(name).index(i);
      (rule.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, rp.child('ports').index(j))));
      (rule[peers] ?? []).forEach((peer, j) => errs.push(...validatePeer(peer, opts, rp.child(peers).index(j))));
    });
  };
  rules('ingress', 'from');
  rules('egress', 'to');
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    // Upstream passes a pointer to the slice; the error dereferences it and prints it with %#v.
    errs.push(invalid(path.child('policyTypes'), new RawValue(`[]networking.PolicyType{${types.map((t) => JSON.stringify(t)).join(', ')}}`), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(notSupported(path.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  return errs;
}

function validatePort(port: NetworkPolicyPort, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && port.protocol !== null && !PROTOCOLS.includes(port.protocol)) {
    errs.push(notSupported(path.child('protocol'), port.protocol, PROTOCOLS));
  }
  const end = port.endPort ?? undefined;
  if (port.port === undefined || port.port === null) {
    if (end !== undefined) errs.push(invalid(path.child('endPort'), end, 'may not be specified when `port` is not specified'));
  } else if (typeof port.port === 'number') {
    const start = port.port;
    errs.push(...isValidPortNum(start).map((m) => invalid(path.child('port'), start, m)));
    if (end !== undefined) {
      if (end < start) errs.push(invalid(path.child('endPort'), end, 'must be greater than or equal to `port`'));
      errs.push(...isValidPortNum(end).map((m) => invalid(path.child('endPort'), end, m)));
    }
  } else {
    const name = port.port;
    if (end !== undefined) errs.push(invalid(path.child('endPort'), end, 'may not be specified when `port` is non-numeric'));
    errs.push(...isValidPortName(name).map((m) => invalid(path.child('port'), name, m)));
  }
  return errs;
}

function validatePeer(peer: NetworkPolicyPeer, opts: PolicyOptions, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  if (peer.podSelector !== undefined && peer.podSelector !== null) {
    count++;
    errs.push(...validateLabelSelector(peer.podSelector, opts.selector, path.child('podSelector')));
  }
  if (peer.namespaceSelector !== undefined && peer.namespaceSelector !== null) {
    count++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, opts.selector, path.child('namespaceSelector')));
  }
  if (peer.ipBlock !== undefined && peer.ipBlock !== null) {
    count++;
    errs.push(...validateIPBlock(peer.ipBlock, opts, path.child('ipBlock')));
  }
  if (count === 0) errs.push(required(path, 'must specify a peer'));
  else if (count > 1 && peer.ipBlock !== undefined && peer.ipBlock !== null) errs.push(forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Whether `inner` lies inside `outer` and is strictly smaller (upstream: Contains(except.IP) and a longer mask). */
function strictSubset(outer: ParsedCIDR, inner: ParsedCIDR): boolean {
  if (outer.ip.v4Literal !== inner.ip.v4Literal) return false;
  const offset = outer.ip.v4Literal ? 96 : 0;
  const a = maskBytes(outer.ip.bytes, outer.bits + offset);
  const b = maskBytes(inner.ip.bytes, outer.bits + offset);
  return a.every((byte, i) => byte === b[i]) && outer.bits < inner.bits;
}

function validateIPBlock(block: IPBlock, opts: PolicyOptions, path: FieldPath): FieldError[] {
  const cidr = block.cidr ?? '';
  if (cidr === '') return [required(path.child('cidr'))];
  const legacy = { strict: false, validOld: opts.existingCIDRs };
  const errs = isValidCIDRForLegacyField(path.child('cidr'), cidr, legacy);
  const outer = parseCIDR(cidr);
  if (outer === undefined) return errs;
  (block.except ?? []).forEach((except, i) => {
    const ep = path.child('except').index(i);
    errs.push(...isValidCIDRForLegacyField(ep, except, legacy));
    const inner = parseCIDR(except);
    if (inner !== undefined && !strictSubset(outer, inner)) errs.push(invalid(ep, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

// ---------------------------------------------------------------- Warnings

/** The Warning upstream's Ingress strategy gives on create for the legacy class annotation (not on update). */
export function ingressWarnings(ing: Ingress, old?: Ingress): string[] {
  if (old !== undefined) return [];
  return ing.metadata?.annotations?.[ANNOTATION_INGRESS_CLASS] === undefined
    ? []
    : [`annotation "${ANNOTATION_INGRESS_CLASS}" is deprecated, please use 'spec.ingressClassName' instead`];
}

/**
 * Warnings for ipBlock CIDRs written in a form upstream discourages (host bits
 * set, leading zeros, non-canonical IPv6): on create, and on an update that
 * changes the spec (upstream: one that bumps the generation).
 */
export function networkPolicyWarnings(np: NetworkPolicy, old?: NetworkPolicy): string[] {
  if (old !== undefined && semanticDeepEqual(np.spec, old.spec)) return [];
  const warnings: string[] = [];
  const spec = FieldPath.root('spec');
  const peers = (rules: { from?: NetworkPolicyPeer[]; to?: NetworkPolicyPeer[] }[] | undefined, name: 'ingress' | 'egress', peer: 'from' | 'to'): void => {
    (rules ?? []).forEach((rule, i) => {
      (rule[peer] ?? []).forEach((p, j) => {
        if (p.ipBlock === undefined || p.ipBlock === null) return;
        const path = spec.child(name).index(i).child(peer).index(j).child('ipBlock');
        warnings.push(...warningsForCIDR(path.child('cidr'), p.ipBlock.cidr));
        (p.ipBlock.except ?? []).forEach((e, k) => warnings.push(...warningsForCIDR(path.child('except').index(k), e)));
      });
    });
  };
  peers(np.spec?.ingress, 'ingress', 'from');
  peers(np.spec?.egress, 'egress', 'to');
  return warnings;
}
