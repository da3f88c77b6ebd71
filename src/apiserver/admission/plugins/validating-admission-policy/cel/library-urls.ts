/**
 * Kubernetes' URL library: url(), isURL() and the URL accessors. Parsing is
 * WHATWG's (Node's URL) for absolute URLs, and a path alone ("/a/b") is
 * accepted as Go's ParseRequestURI accepts it; unlike Go, a default port
 * (https on 443) is dropped by the parser.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from './library-errors.js';

class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly hostname: string,
    readonly port: string,
    readonly escapedPath: string,
    readonly query: string,
  ) {}
}

function parseUrl(text: string): CelURL | undefined {
  if (text.startsWith('/')) {
    const q = text.indexOf('?');
    return new CelURL('', '', '', '', q < 0 ? text : text.slice(0, q), q < 0 ? '' : text.slice(q + 1));
  }
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(text)) return undefined;
  try {
    const u = new URL(text);
    const hostname = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    return new CelURL(u.protocol.slice(0, -1), u.host, hostname, u.port, u.pathname === '/' && !/^[a-z+.-]+:\/\/[^/]*\//i.test(text) ? '' : u.pathname, u.search.slice(1));
  } catch {
    return undefined;
  }
}

function queryOf(u: CelURL): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(u.query)) (out[k] ??= []).push(v);
  return out;
}

export function registerUrlsLibrary(env: Environment): void {
  env
    .registerType('URL', CelURL)
    .registerFunction('url(string): URL', (s: string) => {
      const u = parseUrl(s);
      if (u === undefined) throw new CelFunctionError(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
      return u;
    })
    .registerFunction('isURL(string): bool', (s: string) => parseUrl(s) !== undefined)
    .registerFunction('URL.getScheme(): string', (u: CelURL) => u.scheme)
    .registerFunction('URL.getHost(): string', (u: CelURL) => u.host)
    .registerFunction('URL.getHostname(): string', (u: CelURL) => u.hostname)
    .registerFunction('URL.getPort(): string', (u: CelURL) => u.port)
    .registerFunction('URL.getEscapedPath(): string', (u: CelURL) => u.escapedPath)
    .registerFunction('URL.getQuery(): map<string, list<string>>', queryOf);
}
