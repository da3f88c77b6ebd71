import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import { decodeYamlStrict, duplicateFields, nodeFromValue, nodeToValue, parseJsonNodes, splitYamlWarnings, strictFieldError } from './strict-json.js';

describe('parseJsonNodes', () => {
  it('keeps every key in document order, duplicates included', () => {
    const node = parseJsonNodes('{"a":1,"b":{"c":true},"a":2}');
    assert.equal(node.type, 'object');
    assert.deepEqual(
      node.type === 'object' ? node.entries.map(([k]) => k) : [],
      ['a', 'b', 'a'],
    );
  });

  it('keeps number literals as written', () => {
    const node = parseJsonNodes('[1.0, -0, 1e3, 12345678901234567890]');
    assert.deepEqual(
      node.type === 'array' ? node.items.map((n) => (n.type === 'number' ? n.literal : '')) : [],
      ['1.0', '-0', '1e3', '12345678901234567890'],
    );
  });

  it('gives the values JSON.parse gives', () => {
    const texts = [
      '{"a":"x\\"y\\\\z\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00","b":[null,true,false,-1.5e-3,{}],"c":[]}',
      ' \n\t{ "k" : [ 1 , 2 ] } \r\n',
      '"just a string"',
      '42',
      '{"a":1,"a":{"b":2}}',
      '{"__proto__":{"polluted":1}}',
    ];
    for (const text of texts) assert.deepEqual(nodeToValue(parseJsonNodes(text)), JSON.parse(text) as unknown, text);
    const proto = nodeToValue(parseJsonNodes('{"__proto__":{"polluted":1}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
    assert.deepEqual(Object.keys(proto), ['__proto__']);
  });

  it('rejects malformed JSON', () => {
    for (const text of ['{', '{"a":}', '[1,]', '{"a" 1}', 'tru', '"\u0001"', '"abc', '{"a":1} x', '01', '']) {
      assert.throws(() => parseJsonNodes(text), SyntaxError, text);
    }
  });
});

describe('nodeFromValue', () => {
  it('reads dates as their JSON text and round-trips plain values', () => {
    const value = { a: [1, 'x', null, { b: false }], d: new Date('2024-01-02T03:04:05Z') };
    assert.deepEqual(nodeToValue(nodeFromValue(value)), { a: [1, 'x', null, { b: false }], d: '2024-01-02T03:04:05.000Z' });
  });
});

describe('duplicateFields (a merge patch decoded into map[string]interface{})', () => {
  it('reports duplicates at every level with their paths, in document order, once each', () => {
    const node = parseJsonNodes(
      '{"spec":{"unknownDupe":"a","unknownDupe":"b","paused":true,"paused":false,"template":{"spec":{"containers":[{"imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}},"a":1,"a":2,"a":3}',
    );
    assert.deepEqual(duplicateFields(node), [
      'duplicate field "spec.unknownDupe"',
      'duplicate field "spec.paused"',
      'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
      'duplicate field "a"',
    ]);
  });

  it('names array elements at the top level as [i]', () => {
    assert.deepEqual(duplicateFields(parseJsonNodes('[{"op":"add","op":"remove"}]')), ['duplicate field "[0].op"']);
  });

  it('finds nothing in a document without duplicates', () => {
    assert.deepEqual(duplicateFields(parseJsonNodes('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}')), []);
  });
});

describe('strictFieldError', () => {
  it('quotes the path as Go does', () => {
    assert.equal(strictFieldError('unknown', 'spec.foo'), 'unknown field "spec.foo"');
    assert.equal(strictFieldError('duplicate', 'metadata.labels.a"b'), 'duplicate field "metadata.labels.a\\"b"');
  });
});

describe('decodeYamlStrict', () => {
  it('decodes only the first document of a stream, with its own duplicate keys', () => {
    const { value, duplicateKeyError } = decodeYamlStrict('kind: ConfigMap\nkind: ConfigMap\n---\nkind: Secret\nkind: Secret\n');
    assert.deepEqual(value, { kind: 'ConfigMap' });
    assert.equal(duplicateKeyError, 'yaml: unmarshal errors:\n  line 2: key "kind" already set in map');
  });

  // The body of upstream's test/integration/apiserver/field_validation_test.go (invalidBodyYAML).
  const upstreamBody = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: test-deployment
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never`;

  it("reports duplicate keys as goyaml's strict mode does, with the lines upstream prints", () => {
    const { value, duplicateKeyError } = decodeYamlStrict(upstreamBody);
    assert.equal(
      duplicateKeyError,
      'yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 12: key "unknownDupe" already set in map\n  line 14: key "paused" already set in map\n  line 28: key "imagePullPolicy" already set in map',
    );
    // Of duplicates, the last wins (as goyaml's non-strict conversion keeps it).
    const v = value as { metadata: { name: string }; spec: { paused: boolean } };
    assert.equal(v.metadata.name, 'test-deployment');
    assert.equal(v.spec.paused, false);
  });

  it('lists a duplicate inside a duplicated value before the outer key, at the value’s line', () => {
    const { duplicateKeyError } = decodeYamlStrict('a:\n  x: 1\na:\n  p: 1\n  p: 2\n');
    assert.equal(duplicateKeyError, 'yaml: unmarshal errors:\n  line 5: key "p" already set in map\n  line 4: key "a" already set in map');
  });

  it('prints non-string keys as Go’s %#v does', () => {
    // YAML 1.1, as goyaml reads it: `y` is the boolean true.
    const { duplicateKeyError } = decodeYamlStrict('1: a\n1: b\ntrue: c\ny: d\n');
    assert.equal(duplicateKeyError, 'yaml: unmarshal errors:\n  line 2: key 1 already set in map\n  line 4: key true already set in map');
  });

  it('finds nothing in a document without duplicates, and looks into sequences', () => {
    assert.equal(decodeYamlStrict('a: 1\nb: [1, 1]\nc:\n- x: 1\n  y: 2\n').duplicateKeyError, undefined);
    assert.equal(decodeYamlStrict('c:\n- x: 1\n  x: 2\n').duplicateKeyError, 'yaml: unmarshal errors:\n  line 3: key "x" already set in map');
  });

  it('fails malformed or empty YAML as body.ts does', () => {
    assert.throws(() => decodeYamlStrict('  '), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'the request body is empty');
    assert.throws(() => decodeYamlStrict('a: [1'), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message.startsWith('error decoding the request body as YAML: '));
  });
});

describe('splitYamlWarnings', () => {
  it('splits a goyaml error into one warning a line, and leaves other errors whole', () => {
    assert.deepEqual(splitYamlWarnings('yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 12: key "x" already set in map'), [
      'line 5: key "name" already set in map',
      'line 12: key "x" already set in map',
    ]);
    assert.deepEqual(splitYamlWarnings('error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "a" already set in map'), ['line 1: key "a" already set in map']);
    assert.deepEqual(splitYamlWarnings('unknown field "spec.foo"'), ['unknown field "spec.foo"']);
  });
});
