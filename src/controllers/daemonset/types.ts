/** The kinds the DaemonSet controller reads, as the JSON objects the client hands out. */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';

export type DaemonSetObject = KubeObject & DaemonSet;
export type NodeObject = KubeObject & Node;
export type PodObject = KubeObject & Pod;
