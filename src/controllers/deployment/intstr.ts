/**
 * maxSurge and maxUnavailable as upstream resolves them: an IntOrString is
 * a count or a percentage of the desired replicas; surge rounds up,
 * unavailable rounds down, and when both come to 0 unavailable becomes 1
 * (so a rollout can always make progress even when surging is impossible).
 */
import type { Deployment } from 'kubernetes-types/apps/v1.js';

export type IntOrString = number | string;

/** upstream's GetScaledValueFromIntOrPercent. */
export function scaledValue(value: IntOrString, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (!value.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const match = /^([+-]?\d+)%$/.exec(value);
  if (match === null) throw new Error(`invalid value for IntOrString: invalid value "${value}"`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** upstream's ResolveFenceposts: [surge, unavailable]. */
export function resolveFenceposts(maxSurge: IntOrString | undefined, maxUnavailable: IntOrString | undefined, desired: number): [number, number] {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

export const isRollingUpdate = (d: Deployment): boolean => d.spec?.strategy?.type !== 'Recreate';

export const desiredReplicas = (d: Deployment): number => d.spec?.replicas ?? 1;

/** The most pods above the desired count a rolling update may run (0 for Recreate). */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const rolling = d.spec?.strategy?.rollingUpdate;
  return resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, desiredReplicas(d))[0];
}

/** The most desired pods that may be unavailable during a rolling update (0 for Recreate or 0 replicas; never above replicas). */
export function maxUnavailable(d: Deployment): number {
  const replicas = desiredReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const rolling = d.spec?.strategy?.rollingUpdate;
  const unavailable = resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, replicas)[1];
  return Math.min(unavailable, replicas);
}
