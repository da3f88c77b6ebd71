/** The kinds the StatefulSet controller reads, as the JSON objects the client hands out. */
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';

export type StatefulSetObject = KubeObject & StatefulSet;
export type PodObject = KubeObject & Pod;
