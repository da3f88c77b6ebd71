import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareElements, compareStrings, deserializeElement, FieldSet, FieldsDecodeError, fieldElement, keyElement, pathString, serializeElement, type JsonValue, type Path, type PathElement } from './field-set.js';

const f = fieldElement;
type Obj = { [key: string]: JsonValue };

describe('field paths', () => {
  it('serializes elements as FieldsV1 keys', () => {
    assert.equal(serializeElement(f('spec')), 'f:spec');
    assert.equal(serializeElement(keyElement([['protocol', 'TCP'], ['containerPort', 80]])), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializeElement({ value: 'a<b' }), 'v:"a\\u003cb"');
    assert.equal(serializeElement({ index: 3 }), 'i:3');
  });

  it('reads FieldsV1 keys back, and skips unknown element types', () => {
    assert.deepEqual(deserializeElement('k:{"protocol":"TCP","containerPort":80}'), keyElement([['containerPort', 80], ['protocol', 'TCP']]));
    assert.deepEqual(deserializeElement('v:1'), { value: 1 });
    assert.deepEqual(deserializeElement('i:2'), { index: 2 });
    assert.equal(deserializeElement('x:whatever'), undefined);
    assert.throws(() => deserializeElement('f'), FieldsDecodeError);
    assert.throws(() => deserializeElement('fx'), /missing colon/);
    assert.throws(() => deserializeElement('k:{bad'), FieldsDecodeError);
    assert.throws(() => deserializeElement('i:x'), FieldsDecodeError);
  });

  it('orders fields before keys before values before indexes', () => {
    const sorted = [{ index: 0 }, { value: 'a' }, keyElement([['name', 'x']]), f('b'), f('a')].sort(compareElements);
    assert.deepEqual(sorted.map(serializeElement), ['f:a', 'f:b', 'k:{"name":"x"}', 'v:"a"', 'i:0']);
    // Numbers sort before strings, as upstream's value order has it.
    assert.ok(compareElements({ value: 10 }, { value: 'a' }) < 0);
    assert.ok(compareElements({ value: 2 }, { value: 10 }) < 0);
  });

  it('prints paths as upstream does in conflict messages', () => {
    const p: Path = [f('spec'), f('containers'), keyElement([['name', 'web']]), f('ports'), keyElement([['containerPort', 80], ['protocol', 'TCP']])];
    assert.equal(pathString(p), '.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]');
    assert.equal(pathString([f('finalizers'), { value: 'x' }]), '.finalizers[="x"]');
    assert.equal(pathString([f('args'), { index: 1 }]), '.args[1]');
  });
});

describe('FieldSet', () => {
  const set = FieldSet.of([f('data'), f('b')], [f('data'), f('a')], [f('data')], [f('metadata'), f('labels'), f('x')], [f('apiVersion')]);

  it('encodes FieldsV1 in upstream order, with "." for a node that is itself a member', () => {
    assert.equal(
      JSON.stringify(set.toFieldsV1()),
      '{"f:apiVersion":{},"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:x":{}}}}',
    );
  });

  it('encodes the entries of small and of large nodes in upstream order, members and children mixed', () => {
    // Up to 16 entries (n + 4 here) a node is sorted by insertion, beyond by the library sort: both give compareElements' order.
    for (const n of [3, 12, 13, 40]) {
      const names = Array.from({ length: n }, (_, i) => `n${String(n - i).padStart(2, '0')}`);
      const paths: PathElement[][] = [[keyElement([['name', 'z']])], [{ value: 'v' }], [{ index: 2 }], [keyElement([['name', 'a']]), f('x')]];
      for (const [i, name] of names.entries()) paths.push(i % 3 === 0 ? [f(name), f('leaf')] : [f(name)]);
      const encoded = Object.keys(FieldSet.of(...paths.reverse()).toFieldsV1());
      const expected = [...names.sort(), 'k:{"name":"a"}', 'k:{"name":"z"}', 'v:"v"', 'i:2'].map((k) => (k.includes(':') ? k : `f:${k}`));
      assert.deepEqual(encoded, expected, `${n} fields`);
    }
  });

  it('decodes FieldsV1 back to the same set', () => {
    const decoded = FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(set.toFieldsV1())));
    assert.ok(decoded.equals(set));
    assert.ok(FieldSet.fromFieldsV1(undefined).empty());
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': 1 }), FieldsDecodeError);
  });

  it('iterates members before children', () => {
    assert.deepEqual(set.list().map(pathString), ['.apiVersion', '.data', '.data.a', '.data.b', '.metadata.labels.x']);
  });

  it('computes unions, intersections and differences', () => {
    const other = FieldSet.of([f('data')], [f('spec'), f('x')]);
    assert.equal(set.union(other).size, 6);
    assert.deepEqual(set.intersection(other).list().map(pathString), ['.data']);
    assert.deepEqual(set.difference(other).list().map(pathString), ['.apiVersion', '.data.a', '.data.b', '.metadata.labels.x']);
    // A recursive difference also drops what lies under a removed path.
    assert.deepEqual(set.recursiveDifference(other).list().map(pathString), ['.apiVersion', '.metadata.labels.x']);
    assert.deepEqual(set.withPrefix(f('data')).list().map(pathString), ['.a', '.b']);
    assert.ok(set.hasChildrenOf([f('metadata')]));
    assert.ok(!set.hasChildrenOf([f('apiVersion')]));
  });
});

describe('FieldsV1 round trips', () => {
  const encode = (fields: unknown): string => JSON.stringify(FieldSet.fromFieldsV1(fields).toFieldsV1());

  it('encodes a set decoded from canonical FieldsV1 to that very object', () => {
    const wire = JSON.parse('{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{"f:x":{}}}}') as { [k: string]: JsonValue };
    const set = FieldSet.fromFieldsV1(wire);
    assert.equal(set.toFieldsV1(), wire);
    // A set derived from it re-encodes what changed, and reuses the untouched subtrees.
    const derived = set.difference(FieldSet.of([f('data'), f('a')]));
    assert.equal(JSON.stringify(derived.toFieldsV1()), '{"f:data":{},"f:metadata":{"f:labels":{"f:x":{}}}}');
    assert.equal(derived.toFieldsV1()['f:metadata'], wire['f:metadata']);
  });

  it('re-encodes non-canonical FieldsV1 as upstream writes it', () => {
    // Keys out of order, key fields out of order, '.' on a leaf or not first, unknown element types, a leaf with content.
    assert.equal(encode({ 'f:b': {}, 'f:a': {} }), '{"f:a":{},"f:b":{}}');
    assert.equal(encode({ 'f:c': { 'k:{"protocol":"TCP","port":1}': {} } }), '{"f:c":{"k:{\\"port\\":1,\\"protocol\\":\\"TCP\\"}":{}}}');
    assert.equal(encode({ 'f:a': { '.': {} } }), '{"f:a":{}}');
    assert.equal(encode({ 'f:a': { 'f:x': {}, '.': {} } }), '{"f:a":{".":{},"f:x":{}}}');
    assert.equal(encode({ 'f:a': { 'x:what': {} } }), '{"f:a":{}}');
    assert.equal(encode({ '.': {}, 'f:a': {} }), '{"f:a":{}}');
    assert.equal(encode({ 'f:a': { '.': { junk: {} }, 'f:x': {} } }), '{"f:a":{".":{},"f:x":{}}}');
  });

  it('forgets a cached encoding when a path is inserted', () => {
    const set = FieldSet.fromFieldsV1({ 'f:a': {} });
    set.insert([f('b')]);
    assert.equal(JSON.stringify(set.toFieldsV1()), '{"f:a":{},"f:b":{}}');
    // Deeper down too: the subtree that gains the path forgets its encoding as well.
    const nested = FieldSet.fromFieldsV1({ 'f:a': { 'f:x': {} } });
    nested.insert([f('a'), f('y')]);
    assert.equal(JSON.stringify(nested.toFieldsV1()), '{"f:a":{"f:x":{},"f:y":{}}}');
  });
});

describe('string order', () => {
  it('orders by code point, as Go orders UTF-8 bytes (not by UTF-16 unit)', () => {
    // U+FF5E (one unit) sorts before U+1F600 (a surrogate pair), though 0xFF5E > 0xD83D.
    assert.ok(compareStrings('\uff5e', '\u{1f600}') < 0);
    assert.ok(compareStrings('\u{1f600}', '\uff5e') > 0);
    assert.ok(compareStrings('a', 'ab') < 0);
    assert.ok(compareStrings('b', 'ab') > 0);
    assert.equal(compareStrings('x', 'x'), 0);
  });
});

describe('decoded sets (read lazily)', () => {
  const wire = (): { [key: string]: JsonValue } => ({
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } },
    'f:spec': {
      'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
      'f:replicas': {},
    },
  });
  const built = (): FieldSet =>
    FieldSet.of(
      [f('metadata'), f('labels')],
      [f('metadata'), f('labels'), f('a')],
      [f('metadata'), f('labels'), f('b')],
      [f('spec'), f('containers'), keyElement([['name', 'c']])],
      [f('spec'), f('containers'), keyElement([['name', 'c']]), f('image')],
      [f('spec'), f('containers'), keyElement([['name', 'c']]), f('name')],
      [f('spec'), f('replicas')],
    );

  it('hold the same paths as a set built path by path, and encode to the very object they came from', () => {
    const w = wire();
    const decoded = FieldSet.fromFieldsV1(w);
    assert.ok(decoded.equals(built()) && built().equals(decoded));
    assert.deepEqual(decoded.list().map(pathString), built().list().map(pathString));
    assert.equal(decoded.size, 7);
    assert.equal(decoded.toFieldsV1(), w);
    assert.ok(decoded.has([f('spec'), f('containers'), keyElement([['name', 'c']]), f('image')]));
    assert.ok(!decoded.has([f('spec'), f('containers')]));
  });

  it('keep the wire form of every subtree an operation leaves alone', () => {
    const w = wire();
    const decoded = FieldSet.fromFieldsV1(w);
    const without = decoded.difference(FieldSet.of([f('spec'), f('replicas')]));
    const out = without.toFieldsV1();
    assert.deepEqual(out, { 'f:metadata': w['f:metadata'], 'f:spec': { 'f:containers': (w['f:spec'] as Obj)['f:containers'] } });
    // The untouched subtrees are the decoded objects themselves, not copies.
    assert.equal(out['f:metadata'], w['f:metadata']);
    assert.equal((out['f:spec'] as Obj)['f:containers'], (w['f:spec'] as Obj)['f:containers']);
  });

  it('still fail on an invalid entry however deep it is, as a set read at once does', () => {
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:spec': { 'f:a': { 'i:x': {} } } }), /invalid index: i:x/);
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:spec': { 'k:{bad': {} } }), FieldsDecodeError);
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:spec': { 'f:a': [] } }), /FieldsV1 must be a JSON object/);
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:spec': { 'fx': {} } }), /missing colon/);
    assert.throws(() => FieldSet.fromFieldsV1('nope'), /FieldsV1 must be a JSON object/);
  });

  it('re-encode a FieldsV1 written otherwise (order, key text, misplaced or lone dots, unknown element types)', () => {
    const cases: Array<[JsonValue, JsonValue]> = [
      [{ 'f:b': {}, 'f:a': {} }, { 'f:a': {}, 'f:b': {} }],
      [{ 'k:{"name":"x"}': {}, 'f:a': {} }, { 'f:a': {}, 'k:{"name":"x"}': {} }],
      [{ 'k:{"b":1,"a":2}': {} }, { 'k:{"a":2,"b":1}': {} }],
      [{ 'f:a': { 'f:x': {}, '.': {} } }, { 'f:a': { '.': {}, 'f:x': {} } }],
      [{ 'f:a': { '.': {} } }, { 'f:a': {} }],
      [{ 'f:a': {}, 'z:what': {} }, { 'f:a': {} }],
      [{ 'f:a': { 'f:b': { 'f:c': {} } }, 'i:-0': {} }, { 'f:a': { 'f:b': { 'f:c': {} } }, 'i:0': {} }],
    ];
    for (const [input, expected] of cases) {
      const s = FieldSet.fromFieldsV1(input);
      assert.deepEqual(s.toFieldsV1(), expected, JSON.stringify(input));
      assert.ok(FieldSet.fromFieldsV1(expected).equals(s), JSON.stringify(input));
    }
  });
});

describe('set operations on unchanged sets', () => {
  const a = FieldSet.of([f('x')], [f('y'), f('z')], [f('y'), f('w')]);

  it('return the operand itself when nothing changes (so that it keeps its encoding)', () => {
    assert.equal(a.union(FieldSet.of([f('y'), f('z')])), a);
    assert.equal(a.union(new FieldSet()), a);
    assert.equal(a.difference(FieldSet.of([f('q')], [f('y'), f('q')])), a);
    assert.equal(a.recursiveDifference(FieldSet.of([f('q')])), a);
    assert.equal(a.intersection(a.copy()), a);
    assert.ok(a.covers(FieldSet.of([f('y'), f('w')])));
    assert.ok(!a.covers(FieldSet.of([f('y')])));
  });

  it('build a new set when something changes, leaving the operands as they were', () => {
    const before = a.list().map(pathString);
    const u = a.union(FieldSet.of([f('y'), f('v')]));
    assert.notEqual(u, a);
    assert.deepEqual(u.list().map(pathString), ['.x', '.y.v', '.y.w', '.y.z']);
    assert.deepEqual(a.difference(FieldSet.of([f('y'), f('z')])).list().map(pathString), ['.x', '.y.w']);
    assert.deepEqual(a.recursiveDifference(FieldSet.of([f('y')])).list().map(pathString), ['.x']);
    assert.deepEqual(a.intersection(FieldSet.of([f('x')], [f('y'), f('w')])).list().map(pathString), ['.x', '.y.w']);
    assert.deepEqual(a.list().map(pathString), before);
  });
});
