/**
 * A Job's podFailurePolicy applied to a failed pod (upstream's
 * matchPodFailurePolicy): the first rule whose onExitCodes or onPodConditions
 * requirement matches decides — FailJob (fail the Job now), Ignore (do not
 * count the failure), Count (count it as usual), FailIndex (Indexed Jobs
 * with backoffLimitPerIndex, counted here as Count).
 */
import type { PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyRule } from 'kubernetes-types/batch/v1.js';
import type { JobObject, PodObject } from './job-model.js';

export interface PolicyMatch {
  readonly action: 'FailJob' | 'Ignore' | 'Count' | 'FailIndex';
  /** Upstream's message for FailJob (the Job's FailureTarget/Failed message). */
  readonly message: string;
}

export function matchPodFailurePolicy(job: JobObject, pod: PodObject): PolicyMatch | undefined {
  const rules: PodFailurePolicyRule[] = job.spec?.podFailurePolicy?.rules ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    const action = rule.action as PolicyMatch['action'];
    if (rule.onExitCodes !== undefined) {
      const container = matchExitCodes(pod, rule.onExitCodes);
      if (container !== undefined) {
        return {
          action,
          message: `Container ${container.name} for pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} failed with exit code ${container.exitCode} matching ${action} rule at index ${index}`,
        };
      }
    }
    for (const requirement of rule.onPodConditions ?? []) {
      const matched = (pod.status?.conditions ?? []).some((c) => c.type === requirement.type && c.status === (requirement.status ?? 'True'));
      if (matched) {
        return {
          action,
          message: `Pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} has condition ${requirement.type} matching ${action} rule at index ${index}`,
        };
      }
    }
  }
  return undefined;
}

function matchExitCodes(pod: PodObject, requirement: PodFailurePolicyOnExitCodesRequirement): { name: string; exitCode: number } | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const status of statuses) {
    if (requirement.containerName !== undefined && requirement.containerName !== status.name) continue;
    const exitCode = status.state?.terminated?.exitCode;
    if (exitCode === undefined || exitCode === 0) continue;
    const listed = requirement.values.includes(exitCode);
    if ((requirement.operator === 'In' && listed) || (requirement.operator === 'NotIn' && !listed)) return { name: status.name, exitCode };
  }
  return undefined;
}
