/**
 * The hash that names a version of an /openapi/v3 document, as upstream's
 * kube-openapi computes it: the SHA-512 of the document's JSON bytes in
 * upper-case hex. It is the document's ETag and the `hash` query parameter of
 * its URL in the /openapi/v3 index.
 */
import { createHash } from 'node:crypto';

/** Upper-case hex SHA-512 of `bytes`. */
export function openApiHash(bytes: Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}
