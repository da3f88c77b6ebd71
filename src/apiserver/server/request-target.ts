/**
 * The path and query of a request target (`/api/v1/namespaces/ns/pods?x=y`),
 * exactly as `new URL(target, 'https://apiserver')` reads them. new URL costs
 * several µs per request; the targets clients send are nearly always plain, and
 * for those the URL parser changes nothing, so they are split by hand. Anything
 * it might change (a percent sign, a dot segment, '#', '\', '//' at the start,
 * spaces, non-ASCII, a query starting with another '?') goes to new URL.
 */

export interface RequestTarget {
  readonly path: string;
  readonly query: URLSearchParams;
}

/** Path characters the URL parser keeps as they are: unreserved, sub-delims, ':', '@' and '/'. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
/** Printable ASCII but '#': the URL parser may percent-encode some of it, which URLSearchParams decodes back. */
const PLAIN_QUERY = /^[!-"$-~]*$/;

export function parseRequestTarget(target: string): RequestTarget {
  return plainTarget(target) ?? viaUrl(target);
}

/** The fast path: a plain target split by hand, or undefined when new URL must read it. */
export function plainTarget(target: string): RequestTarget | undefined {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  if (!PLAIN_PATH.test(path) || path.includes('/.')) return undefined;
  // URLSearchParams would drop a second leading '?' that the URL keeps in its query.
  if (query !== '' && (query.charCodeAt(0) === 0x3f || !PLAIN_QUERY.test(query))) return undefined;
  return { path, query: new URLSearchParams(query) };
}

function viaUrl(target: string): RequestTarget {
  const url = new URL(target, 'https://apiserver');
  return { path: url.pathname, query: url.searchParams };
}
