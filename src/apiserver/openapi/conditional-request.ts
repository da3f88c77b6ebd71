/**
 * Whether a GET may be answered 304 Not Modified, by the rules of Go's
 * http.ServeContent, which upstream's OpenAPI handlers use: an If-None-Match
 * header decides alone (a listed entity tag, compared weakly, or `*`);
 * without one, an If-Modified-Since date not before Last-Modified (whole
 * seconds) means not modified.
 */

/** The conditional headers of a request. */
export interface Conditions {
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
}

/** Whether `etag` (quoted) or `lastModified` makes the request's conditions answer 304. */
export function isNotModified(conditions: Conditions, etag: string, lastModified: Date): boolean {
  if (conditions.ifNoneMatch !== undefined) {
    return conditions.ifNoneMatch.split(',').some((t) => {
      const tag = t.trim();
      return tag === '*' || tag.replace(/^W\//, '') === etag;
    });
  }
  if (conditions.ifModifiedSince === undefined) return false;
  const since = Date.parse(conditions.ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
