/**
 * A preemption candidate (upstream's preemption.Candidate with
 * extenderv1.Victims): a node the preemptor would fit on once `victims.pods`
 * are gone.
 */
import type { Pod } from '../types.js';

export interface Victims {
  /** Ordered from the most to the least important. */
  readonly pods: readonly Pod[];
  /** How many of them are protected by a PodDisruptionBudget that would be violated. */
  readonly numPDBViolations: number;
}

export interface Candidate {
  readonly name: string;
  readonly victims: Victims;
}
