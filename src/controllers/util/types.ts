/**
 * The API kinds the workload controllers read, as the JSON objects the
 * client hands out: kubernetes-types' shapes joined with our KubeObject.
 */
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';

export type PodObject = KubeObject & Pod;
export type ReplicaSetObject = KubeObject & ReplicaSet;
export type DeploymentObject = KubeObject & Deployment;
export type { PodTemplateSpec };
