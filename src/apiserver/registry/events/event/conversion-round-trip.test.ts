/**
 * Event's versions survive conversion: random core/v1 and events.k8s.io/v1
 * Events, generated from their OpenAPI schemas, go to every version and back
 * and through storage unchanged. On failure the message names the seed;
 * `K8TS_TEST_SEED=<seed>` replays it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinConversions } from '../../../../api/conversion/builtin.js';
import { newPrng, testSeed } from '../../../../api/conversion/testing/prng.js';
import { checkRoundTrips } from '../../../../api/conversion/testing/round-trip.js';
import { SchemaFuzzer } from '../../../../api/conversion/testing/schema-fuzzer.js';
import { loadOpenApiData } from '../../../openapi/openapi-data.js';

const schemas = loadOpenApiData().schemas;

describe('Event conversion round trips', () => {
  it('core/v1 ↔ internal ↔ events.k8s.io/v1 is lossless for random events of both versions', () => {
    const prng = newPrng(testSeed(20_241_130));
    const fuzzer = new SchemaFuzzer(schemas, prng);
    const generate = (definition: string) => () => fuzzer.of(definition) as Record<string, unknown>;
    checkRoundTrips(
      newBuiltinConversions(),
      [
        { gvk: { group: '', version: 'v1', kind: 'Event' }, generate: generate('io.k8s.api.core.v1.Event') },
        { gvk: { group: 'events.k8s.io', version: 'v1', kind: 'Event' }, generate: generate('io.k8s.api.events.v1.Event') },
      ],
      { prng, iterations: 300 },
    );
  });

  it('generates every field of both versions somewhere in a run (the fuzzer covers the schema)', () => {
    const prng = newPrng(testSeed(1));
    const fuzzer = new SchemaFuzzer(schemas, prng);
    for (const definition of ['io.k8s.api.core.v1.Event', 'io.k8s.api.events.v1.Event']) {
      const seen = new Set<string>();
      for (let i = 0; i < 50; i++) for (const key of Object.keys(fuzzer.of(definition) as object)) seen.add(key);
      const properties = Object.keys((schemas[definition] as { properties: object }).properties).filter((k) => k !== 'apiVersion' && k !== 'kind');
      assert.deepEqual([...seen].sort(), properties.sort(), definition);
    }
  });

  it('rejects a schema it cannot generate from', () => {
    const fuzzer = new SchemaFuzzer({ Bad: { type: 'tuple' }, Ref: { $ref: '#/definitions/X' } }, newPrng(1));
    assert.throws(() => fuzzer.of('Missing'), /no schema named Missing/);
    assert.throws(() => fuzzer.of('Bad'), /unsupported schema type tuple/);
    assert.throws(() => fuzzer.of('Ref'), /unsupported \$ref #\/definitions\/X/);
  });
});
