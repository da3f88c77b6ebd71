/**
 * Upstream's defaulting of apps/v1 kinds (pkg/apis/apps/v1 defaults.go and
 * the generated defaulters, which also default the pod template and the
 * volume claim templates inside them).
 */
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import { defaultPodTemplateSpec } from '../../core/v1/defaults.js';

export function defaultDeployment(d: Deployment): void {
  const spec = (d.spec ??= { selector: undefined as never, template: {} });
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = (strategy.rollingUpdate ??= {});
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  spec.template ??= {};
  defaultPodTemplateSpec(spec.template);
}

export function defaultReplicaSet(rs: ReplicaSet): void {
  const spec = (rs.spec ??= { selector: undefined as never });
  spec.replicas ??= 1;
  spec.template ??= {};
  defaultPodTemplateSpec(spec.template);
}

export function defaultStatefulSet(sts: StatefulSet): void {
  const spec = (sts.spec ??= { selector: undefined as never, template: {} } as unknown as NonNullable<StatefulSet['spec']>);
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const strategy = (spec.updateStrategy ??= {});
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    strategy.rollingUpdate ??= {};
  }
  if (strategy.type === 'RollingUpdate' && strategy.rollingUpdate) strategy.rollingUpdate.partition ??= 0;
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.template ??= {};
  defaultPodTemplateSpec(spec.template);
  for (const claim of spec.volumeClaimTemplates ?? []) {
    // Upstream's API server writes the claim templates with their type, as full PersistentVolumeClaims.
    const typed = claim as { apiVersion?: string; kind?: string };
    if (!typed.apiVersion) typed.apiVersion = 'v1';
    if (!typed.kind) typed.kind = 'PersistentVolumeClaim';
    claim.metadata ??= {};
    const meta = claim.metadata as Record<string, unknown>;
    if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
    claim.spec ??= {};
    claim.spec.volumeMode ??= 'Filesystem';
    // PersistentVolumeClaim defaulting gives the template a Pending status, as upstream shows it.
    const claimWithStatus = claim as { status?: { phase?: string } };
    claimWithStatus.status ??= {};
    if (!claimWithStatus.status.phase) claimWithStatus.status.phase = 'Pending';
  }
}

export function defaultDaemonSet(ds: DaemonSet): void {
  const spec = (ds.spec ??= { selector: undefined as never, template: {} });
  const strategy = (spec.updateStrategy ??= {});
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = (strategy.rollingUpdate ??= {});
    rolling.maxUnavailable ??= 1;
    rolling.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  spec.template ??= {};
  defaultPodTemplateSpec(spec.template);
}

/** ControllerRevisions have no defaults. */
export function defaultControllerRevision(_revision: ControllerRevision): void {}
