/**
 * The admission plugins k8ts has, by upstream name, in upstream's fixed order
 * (kube-apiserver runs enabled plugins in this order whatever the order of
 * the flag), and which are on by default. --enable-admission-plugins adds to
 * the defaults and --disable-admission-plugins removes from them, as upstream.
 */
import type { AdmissionPluginFactory } from '../interfaces.js';
import { newPodSecurity } from './pod-security/pod-security.js';
import { newDefaultTolerationSeconds } from './default-toleration-seconds/default-toleration-seconds.js';
import { newNamespaceLifecycle } from './namespace-lifecycle/namespace-lifecycle.js';
import { newPriority } from './priority/priority.js';
import { newDefaultIngressClass } from './default-ingress-class/default-ingress-class.js';
import { newServiceAccount } from './service-account/service-account.js';
import { newMutatingAdmissionWebhook } from './mutating-webhook/plugin.js';
import { newValidatingAdmissionWebhook } from './validating-webhook/plugin.js';
import { newLimitRanger } from './limit-ranger/limit-ranger.js';
import { newResourceQuota } from './resource-quota/resource-quota.js';
import { newNodeRestriction } from './node-restriction/node-restriction.js';
import { newValidatingAdmissionPolicy } from './validating-admission-policy/plugin.js';
import { newCertificateApproval } from './certificates/certificate-approval.js';
import { newCertificateSigning } from './certificates/certificate-signing.js';
import { newCertificateSubjectRestriction } from './certificates/certificate-subject-restriction.js';

/** Upstream's order (kube-apiserver 1.33): webhooks, policies and ResourceQuota come last. */
export const PLUGIN_ORDER: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** On unless disabled (upstream's defaults; those k8ts does not implement are skipped). */
export const DEFAULT_ENABLED: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodTopologyLabels',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]);

/** The plugins k8ts implements: one line each. */
export const ADMISSION_PLUGINS: Readonly<Record<string, AdmissionPluginFactory>> = {
  PodSecurity: newPodSecurity,
  NamespaceLifecycle: () => newNamespaceLifecycle(),
  ServiceAccount: (deps) => newServiceAccount(deps),
  Priority: (deps) => newPriority(deps),
  DefaultTolerationSeconds: () => newDefaultTolerationSeconds(),
  MutatingAdmissionWebhook: newMutatingAdmissionWebhook,
  ValidatingAdmissionPolicy: newValidatingAdmissionPolicy,
  ValidatingAdmissionWebhook: newValidatingAdmissionWebhook,
  LimitRanger: newLimitRanger,
  ResourceQuota: newResourceQuota,
  NodeRestriction: newNodeRestriction,
  CertificateApproval: newCertificateApproval,
  CertificateSigning: newCertificateSigning,
  CertificateSubjectRestriction: () => newCertificateSubjectRestriction(),
  DefaultIngressClass: (deps) => newDefaultIngressClass(deps),
};

export interface PluginSelection {
  readonly enable?: readonly string[];
  readonly disable?: readonly string[];
}

/**
 * The names to run, in upstream's order. A name upstream does not know is an
 * error; so is explicitly enabling a plugin k8ts does not implement. A
 * default k8ts does not implement (DefaultStorageClass, …) is left out.
 */
export function selectAdmissionPlugins(selection: PluginSelection, available: Readonly<Record<string, AdmissionPluginFactory>> = ADMISSION_PLUGINS): string[] {
  const enable = selection.enable ?? [];
  const disable = selection.disable ?? [];
  for (const [flag, names] of [['--enable-admission-plugins', enable], ['--disable-admission-plugins', disable]] as const) {
    for (const name of names) {
      if (!PLUGIN_ORDER.includes(name)) throw new Error(`${flag}: admission plugin "${name}" is unknown`);
    }
  }
  for (const name of enable) {
    if (available[name] === undefined) throw new Error(`--enable-admission-plugins: admission plugin "${name}" is not implemented by k8ts`);
    if (disable.includes(name)) throw new Error(`admission plugin "${name}" is both enabled and disabled`);
  }
  return PLUGIN_ORDER.filter((name) => (DEFAULT_ENABLED.has(name) || enable.includes(name)) && !disable.includes(name) && available[name] !== undefined);
}
