import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { buildSwaggerDocument } from './build-swagger.js';
import { encodeSwaggerProtobuf, toGnosticDocument } from './gnostic-v2.js';
import { GnosticDocument } from './gnostic-v2-types.js';
import { loadOpenApiV2Data, type JsonObject } from './openapi-data.js';

type Decoded = { [k: string]: unknown };
const doc = buildSwaggerDocument(newBuiltinScheme(), loadOpenApiV2Data(), { version: 'v1.33.0' });
const decoded = GnosticDocument.toObject(GnosticDocument.decode(encodeSwaggerProtobuf(doc)), { longs: Number }) as Decoded;

const named = (list: unknown, name: string): Decoded => {
  const found = (list as { name: string; value: Decoded }[]).find((e) => e.name === name);
  assert.ok(found, `no entry ${name}`);
  return found.value;
};
const extensions = (s: Decoded): Record<string, unknown> =>
  Object.fromEntries(((s['vendorExtension'] ?? []) as { name: string; value: { yaml: string } }[]).map((e) => [e.name, JSON.parse(e.value.yaml) as unknown]));

describe('the OpenAPI v2 document in protobuf (gnostic openapi.v2.Document)', () => {
  it('puts fields at gnostic\'s numbers (checked on hand-made wire bytes)', () => {
    // swagger = 1 (string); definitions = 9 → NamedSchema{name = 1, value = 2 → Schema{type = 22 → TypeItem{value = 1}}}.
    const bytes = encodeSwaggerProtobuf({ swagger: '2.0', definitions: { A: { type: 'string' } } });
    const typeItem = [0x0a, 6, ...Buffer.from('string')];
    const schema = [0xb2, 0x01, typeItem.length, ...typeItem];
    const namedSchema = [0x0a, 1, 0x41, 0x12, schema.length, ...schema];
    const definitions = [0x0a, namedSchema.length, ...namedSchema];
    assert.deepEqual([...bytes], [0x0a, 3, ...Buffer.from('2.0'), 0x4a, definitions.length, ...definitions]);
  });

  it('keeps every definition and path, in the JSON\'s order', () => {
    const defs = (decoded['definitions'] as Decoded)['additionalProperties'] as { name: string }[];
    assert.deepEqual(defs.map((d) => d.name), Object.keys(doc['definitions'] as JsonObject));
    const paths = (decoded['paths'] as Decoded)['path'] as { name: string }[];
    assert.deepEqual(paths.map((p) => p.name), Object.keys(doc['paths'] as JsonObject));
    assert.equal(decoded['swagger'], '2.0');
  });

  it('carries schema types, references and x-kubernetes extensions as kubectl reads them', () => {
    const podSpec = named((decoded['definitions'] as Decoded)['additionalProperties'], 'io.k8s.api.core.v1.PodSpec');
    const props = (podSpec['properties'] as Decoded)['additionalProperties'];
    const containers = named(props, 'containers');
    assert.deepEqual(containers['type'], { value: ['array'] });
    assert.deepEqual(containers['items'], { schema: [{ xRef: '#/definitions/io.k8s.api.core.v1.Container' }] });
    assert.deepEqual(extensions(containers), {
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    assert.deepEqual(podSpec['required'], ['containers']);
    const nodeSelector = named(props, 'nodeSelector');
    assert.deepEqual(nodeSelector['additionalProperties'], { schema: { type: { value: ['string'] } } });
    const pod = named((decoded['definitions'] as Decoded)['additionalProperties'], 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(extensions(pod)['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
  });

  it('encodes body, query and path parameters, shared references and responses', () => {
    const item = named((decoded['paths'] as Decoded)['path'], '/api/v1/namespaces/{namespace}/pods/{name}');
    const put = item['put'] as Decoded;
    const params = put['parameters'] as Decoded[];
    assert.deepEqual(params[0], { parameter: { bodyParameter: { name: 'body', in: 'body', required: true, schema: { xRef: '#/definitions/io.k8s.api.core.v1.Pod' } } } });
    assert.ok(params.some((p) => (p['jsonReference'] as Decoded | undefined)?.['xRef'] === '#/parameters/fieldManager-Qy4HdaTW'));
    assert.ok(params.some((p) => JSON.stringify(p) === JSON.stringify({ parameter: { nonBodyParameter: { queryParameterSubSchema: { in: 'query', name: 'dryRun', type: 'string', uniqueItems: true } } } })));
    const pathParams = item['parameters'] as Decoded[];
    assert.ok(pathParams.some((p) => JSON.stringify(p).includes('"pathParameterSubSchema"')));
    const responses = (put['responses'] as Decoded)['responseCode'] as { name: string; value: Decoded }[];
    assert.deepEqual(responses.map((r) => r.name), ['200', '201', '401']);
    assert.deepEqual(responses[0]!.value, { response: { description: 'OK', schema: { schema: { xRef: '#/definitions/io.k8s.api.core.v1.Pod' } } } });
    assert.equal(put['operationId'], 'replaceCoreV1NamespacedPod');
    assert.deepEqual(extensions(put)['x-kubernetes-action'], 'put');
    const security = (decoded['securityDefinitions'] as Decoded)['additionalProperties'];
    assert.deepEqual(named(security, 'BearerToken'), { apiKeySecurity: { type: 'apiKey', name: 'authorization', in: 'header' } });
    assert.deepEqual(decoded['security'], [{ additionalProperties: [{ name: 'BearerToken', value: {} }] }]);
  });

  it('refuses what the model cannot carry instead of dropping it', () => {
    assert.throws(() => toGnosticDocument({ swagger: '2.0', bogus: 1 }), /document: unsupported key "bogus"/);
    assert.throws(
      () => toGnosticDocument({ swagger: '2.0', parameters: { f: { in: 'formData', name: 'f', type: 'string' } } }),
      /document\.parameters\.f: unsupported parameter location "formData"/,
    );
    assert.throws(() => toGnosticDocument({ swagger: '2.0', definitions: { A: { type: 3 } } }), /document\.definitions\.A\.type: expected a list of strings/);
  });
});
