/**
 * Upstream's intstr.GetScaledValueFromIntOrPercent: a number as it is, a
 * percent string scaled against a total and rounded up or down; anything
 * else is an error (the API server validates these fields, so that means a
 * bug or an old object).
 */
/** An int-or-string field as JSON carries it. */
export type IntOrString = number | string;

export function scaledValue(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (match === null) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
