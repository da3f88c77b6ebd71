/** The placeholder strings upstream prints in cells, byte for byte. */
export const NONE = '<none>';
export const UNSET = '<unset>';
export const UNKNOWN = '<unknown>';
export const PENDING = '<pending>';
export const INVALID = '<invalid>';
export const ERROR = '<error>';

/** `value`, or `<none>` when it is empty or absent. */
export function orNone(value: string | null | undefined): string {
  return value === undefined || value === null || value === '' ? NONE : value;
}
