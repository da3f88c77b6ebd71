/**
 * The canonical text of a resource quantity, as upstream prints
 * `resource.Quantity.String()`: `1000m` → `1`, `0.5` → `500m`, `1536Mi`
 * stays, `1.5Gi` → `1536Mi`, `2048Ki` → `2Mi`, `1e3` → `1e3`. Used by table
 * printing and by the Go JSON shape of written objects (Quantity.MarshalJSON
 * writes this form): text that does not parse is returned unchanged.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18,
};
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_POWER = new Map(Object.entries(BINARY_SUFFIXES).map(([s, p]) => [p, s]));

const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/;

/** A parsed quantity: the exact value `mantissa × 10^scale`, and the suffix family it was written in. */
interface Parsed {
  mantissa: bigint;
  scale: number;
  format: Format;
}

function parse(text: string): Parsed | undefined {
  const m = QUANTITY.exec(text.trim());
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let format: Format;
  let mantissa = BigInt((whole === '' ? '0' : whole) + fraction);
  let scale = -fraction.length;
  const decimal = DECIMAL_SUFFIXES[suffix];
  const binary = BINARY_SUFFIXES[suffix];
  if (decimal !== undefined) {
    format = 'DecimalSI';
    scale += decimal;
  } else if (binary !== undefined) {
    format = 'BinarySI';
    mantissa *= 1n << BigInt(10 * binary);
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    scale += Number.parseInt(suffix.slice(1), 10);
  } else {
    return undefined;
  }
  if (sign === '-') mantissa = -mantissa;
  // Upstream keeps nothing finer than nano: round away from zero to 10^-9.
  if (scale < -9) {
    const divisor = 10n ** BigInt(-9 - scale);
    const quotient = mantissa / divisor;
    const rounded = mantissa % divisor === 0n ? quotient : quotient + (mantissa < 0n ? -1n : 1n);
    mantissa = rounded;
    scale = -9;
  }
  return { mantissa, scale, format };
}

/** The value as an integer if it has no fractional part. */
function asInteger({ mantissa, scale }: Parsed): bigint | undefined {
  if (scale >= 0) return mantissa * 10n ** BigInt(scale);
  const divisor = 10n ** BigInt(-scale);
  return mantissa % divisor === 0n ? mantissa / divisor : undefined;
}

/** Canonical text of a quantity string (upstream's `Quantity.String()`). */
export function canonicalQuantity(text: string): string {
  const q = parse(text);
  if (q === undefined) return text;
  if (q.mantissa === 0n) return '0';

  let format = q.format;
  let integer: bigint | undefined;
  if (format === 'BinarySI') {
    integer = asInteger(q);
    if (integer === undefined || (integer > -1024n && integer < 1024n)) format = 'DecimalSI';
  }

  if (format === 'BinarySI' && integer !== undefined) {
    let power = 0;
    while (power < 6 && integer % 1024n === 0n) {
      integer /= 1024n;
      power++;
    }
    return `${integer}${BINARY_BY_POWER.get(power) ?? ''}`;
  }

  // Decimal: strip trailing zeros, then bring the exponent down to a multiple of 3.
  let { mantissa, scale } = q;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const rest = ((scale % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(rest);
  scale -= rest;
  if (format === 'DecimalExponent') return scale === 0 ? `${mantissa}` : `${mantissa}e${scale}`;
  // Upstream has no SI suffix past E and then prints the bare mantissa; so do we.
  return `${mantissa}${DECIMAL_BY_EXPONENT.get(scale) ?? ''}`;
}

/**
 * The value of a quantity in thousandths, rounded up as upstream's
 * `Quantity.MilliValue()` does (`100m` → 100, `1` → 1000, `0.0001` → 1): the
 * unit the scheduler counts cpu in. Text that does not parse gives undefined.
 */
export function quantityMilliValue(text: string): number | undefined {
  const q = parse(text);
  return q === undefined ? undefined : ceilScaled(q, 3);
}

/**
 * The value of a quantity as a whole number, rounded up as upstream's
 * `Quantity.Value()` does (`1Gi` → 1073741824, `500m` → 1): the unit of
 * memory, storage, pods and extended resources. Text that does not parse gives undefined.
 */
export function quantityValue(text: string): number | undefined {
  const q = parse(text);
  return q === undefined ? undefined : ceilScaled(q, 0);
}

/** mantissa × 10^(scale + shift), rounded towards +∞, as a JS number. */
function ceilScaled({ mantissa, scale }: Parsed, shift: number): number {
  const exponent = scale + shift;
  if (exponent >= 0) return Number(mantissa * 10n ** BigInt(exponent));
  const divisor = 10n ** BigInt(-exponent);
  const quotient = mantissa / divisor;
  return Number(mantissa % divisor !== 0n && mantissa > 0n ? quotient + 1n : quotient);
}
