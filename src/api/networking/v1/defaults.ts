/**
 * networking.k8s.io/v1 defaults, as upstream's SetDefaults_*: a NetworkPolicy
 * without policyTypes gets Ingress (plus Egress when it has egress rules), a
 * NetworkPolicy port without a protocol gets TCP, and IngressClass parameters
 * without a scope get Cluster. An Ingress path's pathType has no default in v1.
 */
import type { IngressClass, NetworkPolicy, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';

export function setNetworkPolicyDefaults(np: NetworkPolicy): void {
  // spec and spec.podSelector are Go structs, never omitted: upstream answers `spec: {podSelector: {}, …}` for a bare policy.
  np.spec ??= { podSelector: {} };
  const spec = np.spec;
  spec.podSelector ??= {};
  const ports = (rules: { ports?: NetworkPolicyPort[] }[] | undefined): void => {
    for (const rule of rules ?? []) {
      for (const port of rule.ports ?? []) {
        if (port.protocol === undefined || port.protocol === null) port.protocol = 'TCP';
      }
    }
  };
  ports(spec.ingress);
  ports(spec.egress);
  if ((spec.policyTypes ?? []).length === 0) {
    spec.policyTypes = (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

export function setIngressClassDefaults(ic: IngressClass): void {
  const params = ic.spec?.parameters;
  if (params !== undefined && params !== null && (params.scope === undefined || params.scope === null)) params.scope = 'Cluster';
}
