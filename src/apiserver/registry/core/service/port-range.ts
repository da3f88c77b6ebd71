/**
 * A range of ports as `--service-node-port-range` takes it (upstream's
 * k8s.io/apimachinery/pkg/util/net PortRange): `30000-32767`, `30000+2767`,
 * or a single port.
 *
 * @example
 *   parsePortRange('30000-32767') // { base: 30000, size: 2768 }
 *   formatPortRange({ base: 30000, size: 2768 }) // '30000-32767'
 */

export interface PortRange {
  readonly base: number;
  readonly size: number;
}

export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export function parsePortRange(text: string): PortRange {
  const value = text.trim();
  if (value === '') return { base: 0, size: 0 };
  const hyphen = value.indexOf('-');
  const plus = value.indexOf('+');
  const int = (s: string): number => {
    if (!/^[+-]?\d+$/.test(s)) throw new Error(`invalid port range "${text}": "${s}" is not a number`);
    return Number(s);
  };
  let low: number;
  let high: number;
  if (hyphen < 0 && plus < 0) {
    low = high = int(value);
  } else if (hyphen >= 0 && plus < 0) {
    low = int(value.slice(0, hyphen));
    high = int(value.slice(hyphen + 1));
  } else if (plus >= 0 && hyphen < 0) {
    low = int(value.slice(0, plus));
    high = low + int(value.slice(plus + 1));
  } else {
    throw new Error(`unable to parse port range: ${value}`);
  }
  if (low > 65535 || high > 65535) throw new Error(`the port range cannot be greater than 65535: ${value}`);
  if (high < low) throw new Error(`end port cannot be less than start port: ${value}`);
  return { base: low, size: 1 + high - low };
}

export function formatPortRange(range: PortRange): string {
  return range.size === 0 ? '' : `${range.base}-${range.base + range.size - 1}`;
}

export function portRangeContains(range: PortRange, port: number): boolean {
  return port >= range.base && port < range.base + range.size;
}
