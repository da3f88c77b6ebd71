/**
 * Content negotiation for GET /api and /apis, as upstream's discovery wrapper
 * does it: the first Accept clause (in upstream's order) that names a media
 * type the server encodes and asks for `g=apidiscovery.k8s.io;v=<v2|v2beta1>;
 * as=APIGroupDiscoveryList` selects the aggregated document; failing that, the
 * legacy document is negotiated from the clauses without such parameters, and
 * with none acceptable the answer is 406.
 *
 * kubectl 1.27–1.29 send
 * `application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`
 * and 1.30–1.33 send
 * `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`.
 * Upstream 1.33 no longer serves v2beta1 by default (feature gate
 * AggregatedDiscoveryRemoveBetaType), so older kubectl falls back to the
 * legacy documents there; `allowV2Beta1: false` reproduces that.
 */
import { clauseMatches, parseAccept, type AcceptClause } from './accept-header.js';

/** The API group of aggregated discovery. */
const DISCOVERY_GROUP = 'apidiscovery.k8s.io';
const DISCOVERY_KIND = 'APIGroupDiscoveryList';

export interface NegotiateDiscoveryOptions {
  /** Serve apidiscovery.k8s.io/v2beta1 to clients that ask for it (default true). */
  allowV2Beta1?: boolean;
  /** Media types the server can encode discovery in, preferred first (default `['application/json']`). */
  mediaTypes?: readonly string[];
}

/** What to answer a discovery request with. */
export type DiscoveryNegotiation =
  | {
      format: 'aggregated';
      version: 'v2' | 'v2beta1';
      /** The encoding, e.g. `application/json`. */
      mediaType: string;
      /** The exact Content-Type to answer with. */
      contentType: string;
    }
  | { format: 'legacy'; mediaType: string; contentType: string }
  | { format: 'not-acceptable' };

/**
 * The Content-Type of an aggregated discovery response.
 *
 * @example aggregatedContentType('v2') // 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
 */
export function aggregatedContentType(version: 'v2' | 'v2beta1', mediaType = 'application/json'): string {
  return `${mediaType};g=${DISCOVERY_GROUP};v=${version};as=${DISCOVERY_KIND}`;
}

const hasConversion = (c: AcceptClause): boolean => 'g' in c.params || 'v' in c.params || 'as' in c.params;

/** Parameters every endpoint rejects: another server version, a stream other than watch. */
function rejectsParams(c: AcceptClause): boolean {
  const sv = c.params['sv'];
  const stream = c.params['stream'];
  return (sv !== undefined && sv !== '') || (stream !== undefined && stream !== '' && stream !== 'watch');
}

/** Decide which discovery document, in which encoding, answers this Accept header. */
export function negotiateDiscovery(accept: string | undefined, options: NegotiateDiscoveryOptions = {}): DiscoveryNegotiation {
  const mediaTypes = options.mediaTypes ?? ['application/json'];
  const versions = options.allowV2Beta1 === false ? ['v2'] : ['v2', 'v2beta1'];
  const first = mediaTypes[0];
  if (first === undefined) return { format: 'not-acceptable' };
  if (accept === undefined || accept.trim() === '') return { format: 'legacy', mediaType: first, contentType: first };
  const clauses = parseAccept(accept);

  for (const clause of clauses) {
    const { g, v, as } = clause.params;
    if (g !== DISCOVERY_GROUP || as !== DISCOVERY_KIND || v === undefined || !versions.includes(v) || rejectsParams(clause)) continue;
    const mediaType = mediaTypes.find((mt) => clauseMatches(clause, mt));
    if (mediaType !== undefined) {
      const version = v as 'v2' | 'v2beta1';
      return { format: 'aggregated', version, mediaType, contentType: aggregatedContentType(version, mediaType) };
    }
  }
  for (const clause of clauses) {
    if (hasConversion(clause) || rejectsParams(clause)) continue;
    const mediaType = mediaTypes.find((mt) => clauseMatches(clause, mt));
    if (mediaType !== undefined) return { format: 'legacy', mediaType, contentType: mediaType };
  }
  return { format: 'not-acceptable' };
}
