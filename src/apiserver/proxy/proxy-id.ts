/**
 * The name of a proxy subresource request, as upstream's SplitSchemeNamePort
 * reads it: `name`, `name:port` or `scheme:name:port`, where the scheme is
 * http, https or empty (`pods/https:web:8443/proxy`, `services/web:http/proxy`).
 */

export type ProxyScheme = '' | 'http' | 'https';

export interface ProxyId {
  /** The whole name as requested. */
  readonly id: string;
  readonly scheme: ProxyScheme;
  readonly name: string;
  /** A number, a port name, or '' (the resource's default). */
  readonly port: string;
}

const SCHEMES: ReadonlySet<string> = new Set(['', 'http', 'https']);

/** The parts of `id`, or undefined when it is not a valid proxy name. */
export function splitSchemeNamePort(id: string): ProxyId | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (name === '' || !SCHEMES.has(scheme)) return undefined;
  return { id, scheme: scheme as ProxyScheme, name, port };
}

/** Go's %q of a string (what upstream's messages quote names with). */
export const quote = (value: string): string => JSON.stringify(value);
