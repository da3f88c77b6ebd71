import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAccept } from './accept-header.js';
import { aggregatedContentType, negotiateDiscovery } from './negotiate-discovery.js';

/** The Accept headers kubectl sends for /api and /apis (checked with `kubectl -v=9`). */
const KUBECTL_1_27 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const KUBECTL_1_33 =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('negotiateDiscovery', () => {
  it('answers kubectl 1.33 with aggregated v2', () => {
    assert.deepEqual(negotiateDiscovery(KUBECTL_1_33), {
      format: 'aggregated',
      version: 'v2',
      mediaType: 'application/json',
      contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
  });

  it('answers kubectl 1.27 with aggregated v2beta1', () => {
    assert.deepEqual(negotiateDiscovery(KUBECTL_1_27), {
      format: 'aggregated',
      version: 'v2beta1',
      mediaType: 'application/json',
      contentType: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    });
  });

  it('falls back to the legacy document when v2beta1 is not served, as upstream 1.33 does', () => {
    assert.deepEqual(negotiateDiscovery(KUBECTL_1_27, { allowV2Beta1: false }), {
      format: 'legacy',
      mediaType: 'application/json',
      contentType: 'application/json',
    });
    assert.equal(negotiateDiscovery(KUBECTL_1_33, { allowV2Beta1: false }).format, 'aggregated');
  });

  it('serves the legacy document for plain, empty and wildcard Accept headers', () => {
    for (const accept of [undefined, '', 'application/json', '*/*', 'application/json, */*']) {
      assert.deepEqual(negotiateDiscovery(accept), { format: 'legacy', mediaType: 'application/json', contentType: 'application/json' }, String(accept));
    }
  });

  it('honours q values and the media types the server encodes', () => {
    const accept = 'application/json;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.9';
    assert.equal(negotiateDiscovery(accept).format, 'aggregated');
    const pb = 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    assert.equal(negotiateDiscovery(pb).format, 'legacy');
    assert.deepEqual(negotiateDiscovery(pb, { mediaTypes: ['application/json', 'application/vnd.kubernetes.protobuf'] }), {
      format: 'aggregated',
      version: 'v2',
      mediaType: 'application/vnd.kubernetes.protobuf',
      contentType: 'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
  });

  it('ignores other conversions and refuses what it cannot encode', () => {
    assert.equal(negotiateDiscovery('application/json;as=Table;v=v1;g=meta.k8s.io').format, 'not-acceptable');
    assert.equal(negotiateDiscovery('text/html').format, 'not-acceptable');
    assert.equal(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList,text/plain').format, 'not-acceptable');
  });

  it('builds the aggregated Content-Type', () => {
    assert.equal(aggregatedContentType('v2beta1'), 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
  });
});

describe('parseAccept', () => {
  it('reads parameters and q, and puts wildcards and lower q last', () => {
    const clauses = parseAccept('*/*;q=0.8, application/yaml;q=0.9, application/json;g=x;v=y;as=Z');
    assert.deepEqual(
      clauses.map((c) => [`${c.type}/${c.subType}`, c.q]),
      [['application/json', 1], ['application/yaml', 0.9], ['*/*', 0.8]],
    );
    assert.deepEqual(clauses[0]!.params, { g: 'x', v: 'y', as: 'Z' });
  });

  it('skips malformed ranges and reads a lone * as */*', () => {
    assert.deepEqual(parseAccept('a/b/c, *').map((c) => `${c.type}/${c.subType}`), ['*/*']);
  });
});
