/** The value of a port flag (--secure-port, --port, …): an integer from 0 (pick a free one) to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new Error(`invalid port "${value}": must be an integer from 0 to 65535`);
  }
  return port;
}
