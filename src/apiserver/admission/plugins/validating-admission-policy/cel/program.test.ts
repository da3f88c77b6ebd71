import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { policyEnvironments } from './environment.js';
import { compileExpression, type ReturnTypes } from './program.js';
import { toCelValue } from './values.js';

const object = toCelValue({
  metadata: { name: 'Web-App', labels: { app: 'web', tier: 'front' } },
  spec: { replicas: 3, ratio: 0.5, ports: [80, 443, 8080], images: ['nginx:1.25', 'busybox'], empty: [] },
});
const activation = { object, oldObject: null, request: toCelValue({ operation: 'CREATE' }), namespaceObject: null, variables: {}, params: toCelValue({ data: { max: '5' } }) };

function run(expression: string, returns: ReturnTypes = 'any', params = false): unknown {
  const envs = policyEnvironments();
  const compiled = compileExpression(params ? envs.withParams : envs.withoutParams, expression, returns);
  const result = compiled.evaluate(activation);
  if (result.error !== undefined) throw new Error(result.error);
  return result.value;
}

function error(expression: string, returns: ReturnTypes = 'any', params = false): string {
  try {
    run(expression, returns, params);
  } catch (e: unknown) {
    return (e as Error).message;
  }
  assert.fail(`${expression} did not fail`);
}

describe('CEL for admission policies', () => {
  it('reads JSON integers as ints and fractions as doubles', () => {
    assert.equal(run('object.spec.replicas + 1'), 4n);
    assert.equal(run('object.spec.ratio * 2.0'), 1);
    assert.equal(run('object.spec.replicas <= 5'), true);
    assert.equal(run('size(object.spec.ports)'), 3n);
  });

  it('has(), optional field selection and absent keys, null-safe as upstream', () => {
    assert.equal(run('has(object.spec.replicas) && !has(object.spec.paused)'), true);
    assert.equal(run('object.spec.?paused.orValue(false)'), false);
    assert.equal(run("object.metadata.?labels[?'app'].orValue('none')"), 'web');
    assert.equal(run('oldObject == null'), true);
    assert.equal(error('object.spec.paused'), "expression 'object.spec.paused' resulted in error: no such key: paused");
    assert.equal(error('object.spec.ports[5] > 0'), "expression 'object.spec.ports[5] > 0' resulted in error: index out of bounds: 5");
  });

  it('macros: all, exists, exists_one, map, filter', () => {
    assert.equal(run("object.spec.images.all(i, i.contains(':') || i == 'busybox')"), true);
    assert.equal(run('object.spec.ports.exists(p, p > 1024)'), true);
    assert.equal(run('object.spec.ports.exists_one(p, p == 80)'), true);
    assert.deepEqual(run('object.spec.ports.filter(p, p < 1000).map(p, p * 2)'), [160n, 886n]);
    assert.equal(run("object.metadata.labels.all(k, k in ['app', 'tier'])"), true);
  });

  it('strings: built in (lowerAscii, upperAscii, split, join, trim, indexOf, substring) and added (charAt, replace, reverse, format, strings.quote)', () => {
    assert.equal(run('object.metadata.name.lowerAscii()'), 'web-app');
    assert.equal(run('object.metadata.name.upperAscii()'), 'WEB-APP');
    assert.deepEqual(run("'a,b,c'.split(',')"), ['a', 'b', 'c']);
    assert.equal(run("['a', 'b'].join('-')"), 'a-b');
    assert.equal(run("'  x '.trim()"), 'x');
    assert.equal(run("'hello'.indexOf('l')"), 2n);
    assert.equal(run("'hello'.substring(1, 3)"), 'el');
    assert.equal(run("'hello'.charAt(1)"), 'e');
    assert.equal(run("'a-b-c'.replace('-', '_')"), 'a_b_c');
    assert.equal(run("'a-b-c'.replace('-', '_', 1)"), 'a_b-c');
    assert.equal(run("'abc'.reverse()"), 'cba');
    assert.equal(run("'%s has %d ports, ratio %.2f, 100%%'.format([object.metadata.name, size(object.spec.ports), object.spec.ratio])"), 'Web-App has 3 ports, ratio 0.50, 100%');
    assert.equal(run('strings.quote(\'say "hi"\')'), '"say \\"hi\\""');
    assert.match(error("'%d'.format(['x'])"), /decimal clause can only be used on integers, was given string/);
  });

  it("lists: Kubernetes' isSorted, sum, min, max, indexOf, lastIndexOf and cel-go's slice, flatten, distinct, reverse, sort, first, last, lists.range", () => {
    assert.equal(run('object.spec.ports.isSorted()'), true);
    assert.equal(run('object.spec.ports.sum()'), 8603n);
    assert.equal(run('object.spec.ports.min()'), 80n);
    assert.equal(run('object.spec.ports.max()'), 8080n);
    assert.equal(run('[1, 2, 1].indexOf(1)'), 0n);
    assert.equal(run('[1, 2, 1].lastIndexOf(1)'), 2n);
    assert.equal(run('[1, 2].indexOf(3)'), -1n);
    assert.deepEqual(run('object.spec.ports.slice(1, 3)'), [443n, 8080n]);
    assert.deepEqual(run('[[1], [2, [3]]].flatten()'), [1n, 2n, [3n]]);
    assert.deepEqual(run('[1, 2, 1].distinct()'), [1n, 2n]);
    assert.deepEqual(run('[3, 1, 2].sort()'), [1n, 2n, 3n]);
    assert.deepEqual(run('[1, 2].reverse()'), [2n, 1n]);
    assert.equal(run('object.spec.ports.first().value()'), 80n);
    assert.equal(run('object.spec.empty.last().hasValue()'), false);
    assert.deepEqual(run('lists.range(3)'), [0n, 1n, 2n]);
    assert.match(error('object.spec.empty.min()'), /resulted in error: min called on empty list$/);
  });

  it('regex: matches, find, findAll; sets: contains, equivalent, intersects; url', () => {
    assert.equal(run("object.spec.images[0].matches('^[a-z]+:[0-9.]+$')"), true);
    assert.equal(run("'abc 123 def 456'.find('[0-9]+')"), '123');
    assert.equal(run("'abc'.find('[0-9]+')"), '');
    assert.deepEqual(run("'abc 123 def 456'.findAll('[0-9]+')"), ['123', '456']);
    assert.deepEqual(run("'1 2 3'.findAll('[0-9]', 2)"), ['1', '2']);
    assert.equal(run('sets.contains([1, 2, 3], [3, 1])'), true);
    assert.equal(run('sets.equivalent([1, 2, 2], [2, 1])'), true);
    assert.equal(run('sets.intersects([1, 2], [5, 6])'), false);
    assert.equal(run("url('https://example.com:8443/a/b?x=1&x=2').getHostname()"), 'example.com');
    assert.equal(run("url('https://example.com:8443/a/b?x=1&x=2').getPort()"), '8443');
    assert.equal(run("url('https://example.com:8443/a/b?x=1&x=2').getEscapedPath()"), '/a/b');
    assert.deepEqual(run("url('https://example.com/?x=1&x=2').getQuery()"), { x: ['1', '2'] });
    assert.equal(run("isURL('not a url') || !isURL('/just/a/path')"), false);
  });

  it('quantity: parse, compare, arithmetic', () => {
    assert.equal(run("quantity('1Gi').isGreaterThan(quantity('1G'))"), true);
    assert.equal(run("quantity('500m').compareTo(quantity('0.5'))"), 0n);
    assert.equal(run("quantity('1.5k').asInteger()"), 1500n);
    assert.equal(run("quantity('100m').isInteger()"), false);
    assert.equal(run("quantity('250m').asApproximateFloat()"), 0.25);
    assert.equal(run("quantity('-2').sign()"), -1n);
    assert.equal(run("quantity('1').add(quantity('500m')).sub(1).isLessThan(quantity('1'))"), true);
    assert.equal(run("isQuantity('1Gi') && !isQuantity('one')"), true);
    assert.match(error("quantity('one')"), /resulted in error: quantities must match the regular expression/);
    assert.match(error("quantity('100m').asInteger()"), /cannot convert value to integer$/);
  });

  it('reports compile errors, result types and undeclared variables as upstream words them', () => {
    assert.equal(error('object.spec.replicas <', 'bool').replace(/:\d+: .*/, ''), 'compilation error: compilation failed: ERROR: <input>:1');
    assert.equal(error("'a'", 'bool'), 'compilation error: must evaluate to bool but got string');
    assert.equal(error('1', 'string'), 'compilation error: must evaluate to string but got int');
    assert.equal(error('[1]', 'string or null'), 'compilation error: must evaluate to one of [string null_type] but got list(int)');
    assert.equal(error('params.data.max == "5"', 'bool'), "compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')");
    assert.equal(run('params.data.max == "5"', 'bool', true), true);
    assert.equal(error('authorizer.group("").resource("pods").check("get").allowed()', 'bool'), "compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')");
  });
});
