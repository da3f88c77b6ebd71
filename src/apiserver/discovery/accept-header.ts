/**
 * An HTTP Accept header parsed as upstream's apiserver parses it (the goautoneg
 * package): clauses split on commas, parameters on semicolons, `q` read as a
 * float (default 1), then ordered by upstream's comparison — higher q first,
 * and a concrete type or subtype before a wildcard — keeping the header's
 * order otherwise.
 */

/** One media range of an Accept header. */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  /** Parameters other than q, e.g. `{ g: 'apidiscovery.k8s.io', v: 'v2', as: 'APIGroupDiscoveryList' }`. */
  params: Record<string, string>;
}

function parseClause(part: string): AcceptClause | undefined {
  const [range = '', ...rawParams] = part.trim().split(';');
  const slash = range.split('/');
  const type = (slash[0] ?? '').trim();
  let subType: string;
  if (slash.length === 1 && type === '*') subType = '*';
  else if (slash.length === 2) subType = (slash[1] ?? '').trim();
  else return undefined;
  const clause: AcceptClause = { type, subType, q: 1, params: {} };
  for (const param of rawParams) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    const token = param.slice(0, eq).trim();
    const value = param.slice(eq + 1);
    if (token === 'q') {
      const q = Number.parseFloat(value);
      clause.q = Number.isNaN(q) ? 0 : q;
    } else {
      clause.params[token] = value.trim();
    }
  }
  return clause;
}

/** goautoneg's ordering: true when `a` goes before `b`. */
function less(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subType !== '*' && b.subType === '*') return true;
  return false;
}

/** The clauses of an Accept header, in the order the server tries them. */
export function parseAccept(header: string): AcceptClause[] {
  const clauses = header.split(',').flatMap((part) => parseClause(part) ?? []);
  // Insertion sort with goautoneg's comparison (what Go's sort does for short lists).
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j]!, clauses[j - 1]!); j--) {
      [clauses[j - 1], clauses[j]] = [clauses[j]!, clauses[j - 1]!];
    }
  }
  return clauses;
}

/** Whether a clause admits the concrete media type `type/subType`. */
export function clauseMatches(clause: AcceptClause, mediaType: string): boolean {
  const [type, subType] = mediaType.split('/');
  if (clause.type === '*' && clause.subType === '*') return true;
  return clause.type === type && (clause.subType === subType || clause.subType === '*');
}
