import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import type { JsonObject } from '../openapi/openapi-data.js';
import {
  base64ErrorOffset,
  builtInTypes,
  decodeStrictDocument,
  decodeTyped,
  goJson,
  GoTypes,
  parseFieldValidationParam,
  patchBodyStrictErrors,
  validateObjectFields,
  validatePatchedFields,
  type GoType,
} from './field-validation.js';
import { parseJsonNodes } from './strict-json.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };

function podType(): GoType {
  const t = builtInTypes().ofKind(POD);
  assert.ok(t !== undefined, 'the OpenAPI data has a Pod');
  return t;
}

const decodeJson = (text: string, type: GoType, strict = true) => decodeTyped(parseJsonNodes(text), type, { strict });

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e: unknown) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a StatusError');
}

/** A small schema set of our own, for what the built-in schemas do not use. */
const TEST_SCHEMAS: Record<string, JsonObject> = {
  'io.example.v1.Widget': {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'example.io', version: 'v1', kind: 'Widget' }],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] },
      spec: {
        type: 'object',
        properties: {
          port: { 'x-kubernetes-int-or-string': true },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          partly: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'integer', format: 'int32' } } },
          embedded: { type: 'object' },
          ratio: { type: 'number' },
          items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          sizes: { type: 'object', additionalProperties: { type: 'array', items: { type: 'integer', format: 'int64' } } },
        },
      },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
  },
};

function widgetType(): GoType {
  const t = new GoTypes(TEST_SCHEMAS).ofKind({ group: 'example.io', version: 'v1', kind: 'Widget' });
  assert.ok(t !== undefined);
  return t;
}

describe('decodeTyped: unknown fields', () => {
  it('drops unknown fields at every depth (nested structs, lists, metadata) and reports them with upstream paths', () => {
    const r = decodeJson(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', foo: 1, labels: { a: 'b' } },
        spec: {
          foo: { deep: 1 },
          containers: [
            { name: 'a', image: 'i', bar: true, ports: [{ containerPort: 80, baz: 1 }] },
            { name: 'b', image: 'i', resources: { limits: { cpu: '1' }, qux: 2 } },
          ],
        },
        status: {},
        extra: 'x',
      }),
      podType(),
    );
    assert.equal(r.error, undefined);
    assert.deepEqual(r.strictErrors, [
      'unknown field "metadata.foo"',
      'unknown field "spec.foo"',
      'unknown field "spec.containers[0].bar"',
      'unknown field "spec.containers[0].ports[0].baz"',
      'unknown field "spec.containers[1].resources.qux"',
      'unknown field "extra"',
    ]);
    assert.deepEqual(r.value, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { a: 'b' } },
      spec: {
        containers: [
          { name: 'a', image: 'i', ports: [{ containerPort: 80 }] },
          { name: 'b', image: 'i', resources: { limits: { cpu: '1' } } },
        ],
      },
      status: {},
    });
  });

  it('drops unknown fields without reporting them when not strict (fieldValidation=Ignore)', () => {
    const r = decodeJson('{"spec":{"foo":1,"containers":[{"name":"a","bar":2}]},"metadata":{"foo":3}}', podType(), false);
    assert.deepEqual(r.strictErrors, []);
    assert.deepEqual(r.value, { spec: { containers: [{ name: 'a' }] }, metadata: {} });
  });

  it('keeps map keys (labels, annotations, resource lists, selectors) whatever they are', () => {
    const r = decodeJson(
      '{"metadata":{"labels":{"anything/at-all":"x"},"annotations":{"k":"v"}},"spec":{"nodeSelector":{"disk":"ssd"},"containers":[{"resources":{"requests":{"memory":"1Gi","example.com/gpu":1}}}]}}',
      podType(),
    );
    assert.deepEqual(r.strictErrors, []);
    assert.deepEqual(r.value, JSON.parse('{"metadata":{"labels":{"anything/at-all":"x"},"annotations":{"k":"v"}},"spec":{"nodeSelector":{"disk":"ssd"},"containers":[{"resources":{"requests":{"memory":"1Gi","example.com/gpu":1}}}]}}'));
  });

  it('matches keys case-sensitively, as upstream does', () => {
    const r = decodeJson('{"Spec":{},"metadata":{"Name":"x"}}', podType());
    assert.deepEqual(r.strictErrors, ['unknown field "Spec"', 'unknown field "metadata.Name"']);
  });

  it('does not look inside an unknown field, and reports each path once', () => {
    const r = decodeJson('{"spec":{"foo":{"a":1,"a":2,"b":"x"},"foo":3}}', podType());
    assert.deepEqual(r.strictErrors, ['unknown field "spec.foo"']);
  });

  it('keeps embedded raw objects (RawExtension) as sent', () => {
    const revision = builtInTypes().ofKind({ group: 'apps', version: 'v1', kind: 'ControllerRevision' });
    assert.ok(revision !== undefined);
    const r = decodeJson('{"revision":1,"data":{"spec":{"anything":[1,{"x":true}]},"a":1,"a":2}}', revision);
    assert.deepEqual(r.strictErrors, []);
    assert.deepEqual(r.value, { revision: 1, data: { spec: { anything: [1, { x: true }] }, a: 2 } });
  });

  it('keeps everything under x-kubernetes-preserve-unknown-fields, and a schema-less object', () => {
    const r = decodeJson('{"spec":{"free":{"x":{"y":[1]}},"partly":{"known":1,"other":"kept"},"embedded":{"z":1},"nope":1}}', widgetType());
    assert.deepEqual(r.strictErrors, ['unknown field "spec.nope"']);
    assert.deepEqual(r.value, { spec: { free: { x: { y: [1] } }, partly: { known: 1, other: 'kept' }, embedded: { z: 1 } } });
  });

  it('walks maps of lists and lists of objects', () => {
    const r = decodeJson('{"spec":{"items":[{"name":"a","x":1},{"y":2}],"sizes":{"a":[1,2],"b":["3"]}}}', widgetType());
    assert.deepEqual(r.strictErrors, ['unknown field "spec.items[0].x"', 'unknown field "spec.items[1].y"']);
    assert.equal(r.error, 'json: cannot unmarshal string into Go struct field .spec.sizes of type int64');
  });

  it('walks a YAML body or a patched object in key order', () => {
    const r = decodeTyped(parseJsonNodes('{"spec":{"zeta":1,"containers":[{"x":1}]},"metadata":{"foo":1}}'), podType(), { strict: true, sortKeys: true });
    assert.deepEqual(r.strictErrors, ['unknown field "metadata.foo"', 'unknown field "spec.containers[0].x"', 'unknown field "spec.zeta"']);
    // The object keeps the document's order.
    assert.deepEqual(Object.keys(r.value as object), ['spec', 'metadata']);
  });

  it('stops at 100 strict errors', () => {
    const fields = Array.from({ length: 150 }, (_, i) => `"f${i}":1`).join(',');
    assert.equal(decodeJson(`{"spec":{${fields}}}`, podType()).strictErrors.length, 100);
  });
});

describe('decodeTyped: duplicate fields', () => {
  it('reports duplicates of known fields and map keys, in document order among unknown fields; the last wins', () => {
    const r = decodeJson('{"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"}},"spec":{"hostname":"h","foo":1,"hostname":"i"}}', podType());
    assert.deepEqual(r.strictErrors, [
      'duplicate field "metadata.name"',
      'duplicate field "metadata.labels.x"',
      'unknown field "spec.foo"',
      'duplicate field "spec.hostname"',
    ]);
    assert.deepEqual(r.value, { metadata: { name: 'b', labels: { x: '2' } }, spec: { hostname: 'i' } });
  });

  it('merges a duplicated struct field into the first, as Go decodes it', () => {
    const r = decodeJson('{"metadata":{"name":"a"},"metadata":{"namespace":"n"}}', podType());
    assert.deepEqual(r.strictErrors, ['duplicate field "metadata"']);
    assert.deepEqual(r.value, { metadata: { name: 'a', namespace: 'n' } });
  });

  it('reports duplicates inside free-form objects', () => {
    const r = decodeJson('{"spec":{"free":{"a":{"b":1,"b":2}}}}', widgetType());
    assert.deepEqual(r.strictErrors, ['duplicate field "spec.free.a.b"']);
  });

  it('reports nothing when not strict', () => {
    assert.deepEqual(decodeJson('{"metadata":{"name":"a","name":"b"}}', podType(), false).strictErrors, []);
  });
});

describe('decodeTyped: type mismatches', () => {
  const cases: Array<[string, string]> = [
    ['{"spec":{"containers":"x"}}', 'json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container'],
    ['{"spec":{"containers":["x"]}}', 'json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container'],
    ['{"spec":"x"}', 'json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec'],
    ['{"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}', 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    ['{"spec":{"containers":[{"env":[{"name":"a","value":true}]}]}}', 'json: cannot unmarshal bool into Go struct field EnvVar.spec.containers.env.value of type string'],
    ['{"spec":{"containers":[{"stdin":"yes"}]}}', 'json: cannot unmarshal string into Go struct field Container.spec.containers.stdin of type bool'],
    ['{"spec":{"containers":[{"name":{}}]}}', 'json: cannot unmarshal object into Go struct field Container.spec.containers.name of type string'],
    ['{"spec":{"containers":[{"args":[1]}]}}', 'json: cannot unmarshal number into Go struct field Container.spec.containers.args of type string'],
    ['{"spec":{"containers":[{"imagePullPolicy":1}]}}', 'json: cannot unmarshal number into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy'],
    ['{"spec":{"containers":[{"resources":{"limits":"1"}}]}}', 'json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList'],
    ['{"metadata":{"labels":{"a":1}}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    ['{"metadata":{"labels":["a"]}}', 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
    ['{"metadata":{"name":5}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'],
    ['{"metadata":"x"}', 'json: cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta'],
    ['{"spec":{"activeDeadlineSeconds":1.5}}', 'json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64'],
    ['{"spec":{"activeDeadlineSeconds":1.0}}', 'json: cannot unmarshal number 1.0 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64'],
    ['{"spec":{"containers":[{"ports":[{"containerPort":4294967296}]}]}}', 'json: cannot unmarshal number 4294967296 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    // Types with their own UnmarshalJSON.
    ['{"metadata":{"creationTimestamp":5}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string'],
    ['{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":true}}}]}}', 'json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type int32'],
    ['{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":1.5}}}]}}', 'json: cannot unmarshal number 1.5 into Go struct field HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type int32'],
    ['{"spec":{"containers":[{"resources":{"limits":{"cpu":{}}}}]}}', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  ];
  for (const [body, message] of cases) {
    it(`rejects ${body}`, () => {
      assert.equal(decodeJson(body, podType()).error, message);
      // Strict or not, a type mismatch fails the decoding.
      assert.equal(decodeJson(body, podType(), false).error, message);
    });
  }

  it('accepts both forms of int-or-string and Quantity, and null anywhere', () => {
    const ok = [
      '{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":8080}}},{"livenessProbe":{"httpGet":{"port":"http"}}}]}}',
      '{"spec":{"containers":[{"resources":{"limits":{"cpu":1,"memory":"1Gi"}}}]}}',
      '{"metadata":{"labels":null,"creationTimestamp":null},"spec":{"containers":null,"activeDeadlineSeconds":null}}',
      '{"spec":{"containers":[{"ports":[{"containerPort":-2147483648},{"containerPort":2147483647}]}]}}',
    ];
    for (const body of ok) assert.equal(decodeJson(body, podType()).error, undefined, body);
    assert.equal(decodeJson('{"spec":{"port":"x"}}', widgetType()).error, undefined);
    assert.equal(decodeJson('{"spec":{"port":7}}', widgetType()).error, undefined);
    assert.equal(decodeJson('{"spec":{"port":[]}}', widgetType()).error, 'json: cannot unmarshal array into Go struct field .spec.port of type int32');
    assert.equal(decodeJson('{"spec":{"ratio":"1"}}', widgetType()).error, 'json: cannot unmarshal string into Go struct field .spec.ratio of type float64');
  });

  it('reports the first mismatch, unless a type’s own decoder fails later (which stops decoding)', () => {
    assert.equal(
      decodeJson('{"spec":{"hostname":1,"subdomain":2}}', podType()).error,
      'json: cannot unmarshal number into Go struct field PodSpec.spec.hostname of type string',
    );
    assert.equal(
      decodeJson('{"spec":{"hostname":1,"containers":[{"resources":{"limits":{"cpu":true}}}]}}', podType()).error,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

describe('base64 of byte fields (Secret data)', () => {
  it('finds corrupt input where Go’s base64.StdEncoding does', () => {
    const cases: Array<[string, number | undefined]> = [
      ['', undefined],
      ['aGVsbG8=', undefined],
      ['aGVsbG8gd29ybGQ=', undefined],
      ['aGVs\nbG8=\r\n', undefined],
      ['password', undefined],
      ['abc', 0],
      ['abcde', 4],
      ['hello world', 5],
      ['aGVsbG8', 4],
      ['a===', 1],
      ['ab=c', 2],
      ['ab=', 3],
      ['aGVsbG8=x', 8],
      ['é', 0],
    ];
    for (const [input, offset] of cases) assert.equal(base64ErrorOffset(input), offset, JSON.stringify(input));
  });

  it('fails a Secret whose data is not base64, with upstream’s message', () => {
    const secret = { group: '', version: 'v1', kind: 'Secret' };
    const doc = decodeStrictDocument(Buffer.from('{"apiVersion":"v1","kind":"Secret","data":{"a":"aGk=","b":"hello world"},"stringData":{"c":"plain text"}}'), 'json');
    const e = statusOf(() => validateObjectFields(doc, secret, 'Strict'));
    assert.equal(e.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 5');
    const wrongType = decodeStrictDocument(Buffer.from('{"data":{"a":1}}'), 'json');
    assert.equal(
      statusOf(() => validateObjectFields(wrongType, secret, 'Strict')).message,
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
    );
  });
});

describe('validateObjectFields: the fast path from JSON.parse’s value', () => {
  /** The same body decoded with the node tree only (no facts: the full decoder). */
  const full = (text: string) => {
    const doc = decodeStrictDocument(Buffer.from(text), 'json');
    return { value: doc.value, node: doc.node, sortedKeys: false, yamlError: undefined };
  };
  const outcome = (run: () => unknown): unknown => {
    try {
      return { ok: JSON.stringify(run()) };
    } catch (e: unknown) {
      if (e instanceof StatusError) return { error: e.message };
      throw e;
    }
  };
  const SECRET = { group: '', version: 'v1', kind: 'Secret' };
  const cases: Array<[string, typeof POD]> = [
    ['{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":1}}}]}}', POD],
    ['{"kind":"Pod","metadata":{"name":"p","name":"q"},"spec":{"containers":[]}}', POD],
    ['{"kind":"Pod","spec":{"foo":1,"containers":[]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":1.0}]}]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":1e2}]}]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":4294967296}]}]}}', POD],
    ['{"kind":"Pod","spec":{"activeDeadlineSeconds":12345678901234567}}', POD],
    ['{"kind":"Pod","spec":{"activeDeadlineSeconds":-999999999999999,"containers":[{"name":"c","ports":[{"containerPort":2147483647,"hostPort":-2147483648}]}]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":2147483648}]}]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":-2147483649}]}]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":2147483648}}}]}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":"80"}]}]}}', POD],
    ['{"kind":"Pod","metadata":{"creationTimestamp":5}}', POD],
    ['{"kind":"Pod","metadata":{"__proto__":{"x":1},"name":"p"}}', POD],
    ['{"kind":"Pod","metadata":{"annotations":{"a":"b","a":"c"}}}', POD],
    ['{"kind":"Pod","spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"http"}}}]}}', POD],
    ['{"kind":"Pod","spec":null,"status":{"phase":null}}', POD],
    ['{"apiVersion":"v1","kind":"Secret","data":{"a":"aGk="}}', SECRET],
    ['{"apiVersion":"v1","kind":"Secret","data":{"a":"hello world"}}', SECRET],
    ['{"apiVersion":"v1","kind":"Secret","data":{"a":[104,105]}}', SECRET],
    ['{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":-0,"template":{"metadata":{"labels":{"a":"b"}}}}}', DEPLOYMENT],
  ];

  it('gives what the full decoder gives, for every directive', () => {
    for (const [text, kind] of cases) {
      for (const directive of ['Strict', 'Warn', 'Ignore'] as const) {
        assert.deepEqual(
          outcome(() => validateObjectFields(decodeStrictDocument(Buffer.from(text), 'json'), kind, directive)),
          outcome(() => validateObjectFields(full(text), kind, directive)),
          `${directive} ${text}`,
        );
      }
    }
  });

  it('builds a JSON body’s node tree only when asked, and once', () => {
    const doc = decodeStrictDocument(Buffer.from('{"kind":"Pod","spec":{"foo":1}}'), 'json');
    assert.equal(doc.sortedKeys, false);
    assert.equal(doc.yamlError, undefined);
    assert.deepEqual(doc.jsonFacts, { keys: 3, plainIntegers: true, depth: 2 });
    assert.equal(doc.node, doc.node);
    assert.equal(doc.node.type, 'object');
    assert.deepEqual(validateObjectFields(doc, POD, 'Warn').warnings, ['unknown field "spec.foo"']);
  });

  it('compiles a kind without a schema once, and decodes it as before', () => {
    const types = builtInTypes();
    const thing = { group: 'example.io', version: 'v1', kind: 'Thing' };
    assert.equal(types.typeOf(thing), types.typeOf(thing));
    assert.equal(types.typeOf(thing), types.untypedKind('Thing'));
    assert.equal(types.typeOf(POD), podType());
    const r = validateObjectFields(decodeStrictDocument(Buffer.from('{"metadata":{"name":"t","foo":1},"spec":{"x":1}}'), 'json'), thing, 'Warn');
    assert.deepEqual(r, { value: { metadata: { name: 't' }, spec: { x: 1 } }, warnings: ['unknown field "metadata.foo"'] });
  });

  it('still fails a document nested beyond the decoder’s limit as it always has', () => {
    const deep = `{"kind":"Pod","metadata":{"annotations":{}},"spec":${'['.repeat(10_005)}${']'.repeat(10_005)}}`;
    assert.equal(statusOf(() => decodeStrictDocument(Buffer.from(deep), 'json')).message, 'error decoding the request body as JSON: exceeded max depth');
  });
});

describe('validateObjectFields (create and update bodies)', () => {
  const body = (text: string) => decodeStrictDocument(Buffer.from(text), 'json');
  const unknownAndDuplicate = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","name":"q"},"spec":{"foo":1,"bar":2,"containers":[{"name":"c","image":"i"}]}}';

  it('fails with Strict: 400 with upstream’s message', () => {
    const e = statusOf(() => validateObjectFields(body(unknownAndDuplicate), POD, 'Strict'));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(
      e.message,
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name", unknown field "spec.foo", unknown field "spec.bar"',
    );
  });

  it('warns with Warn, and drops the unknown fields', () => {
    const r = validateObjectFields(body(unknownAndDuplicate), POD, 'Warn');
    assert.deepEqual(r.warnings, ['duplicate field "metadata.name"', 'unknown field "spec.foo"', 'unknown field "spec.bar"']);
    assert.deepEqual(r.value, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  });

  it('says nothing with Ignore, and still drops the unknown fields', () => {
    const r = validateObjectFields(body(unknownAndDuplicate), POD, 'Ignore');
    assert.deepEqual(r.warnings, []);
    assert.deepEqual((r.value as { spec: unknown }).spec, { containers: [{ name: 'c', image: 'i' }] });
  });

  it('fails a type mismatch whatever the directive, naming the body’s kind and version', () => {
    for (const directive of ['Strict', 'Warn', 'Ignore'] as const) {
      const e = statusOf(() => validateObjectFields(body('{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":"1","foo":1}}'), DEPLOYMENT, directive));
      assert.equal(e.code, 400);
      assert.equal(e.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
    }
  });

  it('puts the YAML duplicate-key error first, then unknown fields in key order', () => {
    const yaml = decodeStrictDocument(Buffer.from('apiVersion: v1\nkind: Pod\nspec:\n  zeta: 1\n  alpha: 2\n  hostname: a\n  hostname: b\n'), 'yaml');
    const e = statusOf(() => validateObjectFields(yaml, POD, 'Strict'));
    assert.equal(
      e.message,
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: yaml: unmarshal errors:\n  line 7: key "hostname" already set in map, unknown field "spec.alpha", unknown field "spec.zeta"',
    );
    assert.deepEqual(validateObjectFields(yaml, POD, 'Warn').warnings, ['line 7: key "hostname" already set in map', 'unknown field "spec.alpha"', 'unknown field "spec.zeta"']);
    assert.deepEqual(validateObjectFields(yaml, POD, 'Ignore').value, { apiVersion: 'v1', kind: 'Pod', spec: { hostname: 'b' } });
  });

  it('fails a document nested deeper than the decoder goes with a 400, not a crash', () => {
    const deep = Buffer.from(`{"metadata":{"name":"x"},"spec":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
    const e = statusOf(() => validateObjectFields(decodeStrictDocument(deep, 'json'), { group: 'example.io', version: 'v1', kind: 'Thing' }, 'Strict'));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'error decoding the request body as JSON: exceeded max depth');
  });

  it('types the metadata of a kind the OpenAPI data lacks, and keeps the rest', () => {
    const gvk = { group: 'example.io', version: 'v1', kind: 'Gadget' };
    const r = validateObjectFields(body('{"metadata":{"name":"g","foo":1},"spec":{"anything":1}}'), gvk, 'Warn');
    assert.deepEqual(r.warnings, ['unknown field "metadata.foo"']);
    assert.deepEqual(r.value, { metadata: { name: 'g' }, spec: { anything: 1 } });
  });
});

describe('patches', () => {
  // Upstream's testFieldValidationPatchTyped bodies.
  const mergePatchBody = `{"spec":{"unknown1":"val1","unknownDupe":"valDupe","unknownDupe":"valDupe2","paused":true,"paused":false,
    "template":{"spec":{"containers":[{"name":"nginx","image":"nginx:latest","unknownNested":"val1","imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}}`;
  const jsonPatchBody = `[
    {"op": "add", "path": "/spec/unknown1", "value": "val1", "foo":"bar"},
    {"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
    {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
    {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
    {"op": "add", "path": "/spec/paused", "value": true},
    {"op": "add", "path": "/spec/paused", "value": false},
    {"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
    {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
    {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
  ]`;
  const current = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'nginx' } }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } } },
  };

  it('reports a merge patch’s duplicates, then the patched object’s unknown fields in key order (upstream’s text)', () => {
    const patchErrors = patchBodyStrictErrors('merge-patch', Buffer.from(mergePatchBody));
    const patched = {
      ...current,
      spec: {
        ...current.spec,
        unknown1: 'val1',
        unknownDupe: 'valDupe2',
        paused: false,
        template: { spec: { containers: [{ name: 'nginx', image: 'nginx:latest', unknownNested: 'val1', imagePullPolicy: 'Never' }] } },
      },
    };
    const e = statusOf(() => validatePatchedFields(patched, DEPLOYMENT, 'Strict', patchErrors));
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.ok(
      e.message.endsWith(
        'strict decoding error: duplicate field "spec.unknownDupe", duplicate field "spec.paused", duplicate field "spec.template.spec.containers[0].imagePullPolicy", unknown field "spec.template.spec.containers[0].unknownNested", unknown field "spec.unknown1", unknown field "spec.unknownDupe"',
      ),
      e.message,
    );
    assert.ok(e.message.startsWith(' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"apps/v1\\",\\"kind\\":\\"Deployment\\",\\"metadata\\":'), e.message);
    assert.deepEqual(e.status.details?.causes?.map((c) => c.field), ['patch']);

    const warned = validatePatchedFields(patched, DEPLOYMENT, 'Warn', patchErrors);
    assert.deepEqual(warned.warnings, [
      'duplicate field "spec.unknownDupe"',
      'duplicate field "spec.paused"',
      'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
      'unknown field "spec.template.spec.containers[0].unknownNested"',
      'unknown field "spec.unknown1"',
      'unknown field "spec.unknownDupe"',
    ]);
    const spec = (warned.value as { spec: Record<string, unknown> }).spec;
    assert.equal('unknown1' in spec, false);
    assert.deepEqual(spec.template, { spec: { containers: [{ name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Never' }] } });
  });

  it('reports a JSON patch’s own unknown and duplicate fields as "json patch …"', () => {
    assert.deepEqual(patchBodyStrictErrors('json-patch', Buffer.from(jsonPatchBody)), ['json patch unknown field "[0].foo"', 'json patch duplicate field "[1].path"']);
  });

  it('fails a patch body that does not decode into its Go type with 400 "error decoding patch"', () => {
    let e = statusOf(() => patchBodyStrictErrors('json-patch', Buffer.from('{"op":"add"}')));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
    e = statusOf(() => patchBodyStrictErrors('json-patch', Buffer.from('[{"op":1}]')));
    assert.equal(e.message, 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string');
    e = statusOf(() => patchBodyStrictErrors('merge-patch', Buffer.from('[1]')));
    assert.equal(e.message, 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  it('fails a patched object of the wrong types with 422 even under Ignore', () => {
    const e = statusOf(() => validatePatchedFields({ ...current, spec: { ...current.spec, replicas: 'x' } }, DEPLOYMENT, 'Ignore', []));
    assert.equal(e.code, 422);
    assert.ok(e.message.endsWith('": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'), e.message);
  });

  it('says nothing under Ignore, but drops unknown fields', () => {
    const r = validatePatchedFields({ ...current, spec: { ...current.spec, foo: 1 } }, DEPLOYMENT, 'Ignore', []);
    assert.deepEqual(r.warnings, []);
    assert.equal('foo' in (r.value as { spec: object }).spec, false);
  });
});

describe('parseFieldValidationParam', () => {
  it('defaults to Warn and accepts the three directives', () => {
    assert.equal(parseFieldValidationParam(new URLSearchParams(''), 'CreateOptions'), 'Warn');
    assert.equal(parseFieldValidationParam(new URLSearchParams('fieldValidation='), 'CreateOptions'), 'Warn');
    for (const d of ['Strict', 'Warn', 'Ignore']) assert.equal(parseFieldValidationParam(new URLSearchParams(`fieldValidation=${d}`), 'PatchOptions'), d);
  });

  it('rejects anything else with upstream’s 422', () => {
    const e = statusOf(() => parseFieldValidationParam(new URLSearchParams('fieldValidation=strict'), 'UpdateOptions'));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"');
  });
});

describe('goJson', () => {
  it('writes as Go’s json.Marshal of a map: sorted keys, HTML characters escaped', () => {
    assert.equal(goJson({ b: 1, a: { d: [{ z: 1, y: '<&>' }], c: null } }), '{"a":{"c":null,"d":[{"y":"\\u003c\\u0026\\u003e","z":1}]},"b":1}');
  });
});

describe('the built-in schemas', () => {
  it('type every served kind that has a schema, including the scale subresource’s', () => {
    const types = builtInTypes();
    for (const gvk of [POD, DEPLOYMENT, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, { group: '', version: 'v1', kind: 'ConfigMap' }]) {
      const t = types.ofKind(gvk);
      assert.equal(t?.kind, 'struct', `${gvk.kind}`);
    }
    assert.equal(types.ofKind({ group: 'example.io', version: 'v1', kind: 'Nothing' }), undefined);
  });
});
