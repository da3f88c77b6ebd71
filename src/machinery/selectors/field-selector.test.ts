import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../status.js';
import {
  DEFAULT_SELECTABLE_FIELDS,
  checkDefaultFieldSelectorFields,
  checkFieldSelectorFields,
  everythingFields,
  fieldSelectorFromSet,
  newFieldSelector,
  oneTermEqualSelector,
  parseFieldSelector,
  type FieldRequirement,
} from './field-selector.js';

function assertBadRequest(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, `not a StatusError: ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, message);
    return true;
  });
}

const reqs = (text: string): FieldRequirement[] => [...parseFieldSelector(text).requirements];

const POD_FIELDS = [
  'metadata.name',
  'metadata.namespace',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.podIPs',
  'status.nominatedNodeName',
];

describe('parseFieldSelector: operators', () => {
  it('parses =, == and !=; == is the same requirement as =', () => {
    assert.deepEqual(reqs('a=b'), [{ field: 'a', operator: '=', value: 'b' }]);
    assert.deepEqual(reqs('a==b'), [{ field: 'a', operator: '=', value: 'b' }]);
    assert.deepEqual(reqs('a!=b'), [{ field: 'a', operator: '!=', value: 'b' }]);
  });

  it('splits at the first operator, preferring != then == then = at one position', () => {
    assert.deepEqual(reqs('a=!b'), [{ field: 'a', operator: '=', value: '!b' }]);
    assert.deepEqual(reqs('a!b=c'), [{ field: 'a!b', operator: '=', value: 'c' }]);
    assert.deepEqual(reqs('a!=\\=b'), [{ field: 'a', operator: '!=', value: '=b' }]);
    assert.deepEqual(reqs('a==\\=b'), [{ field: 'a', operator: '=', value: '=b' }]);
  });

  it('allows empty values and empty fields', () => {
    assert.deepEqual(reqs('a='), [{ field: 'a', operator: '=', value: '' }]);
    assert.deepEqual(reqs('a!='), [{ field: 'a', operator: '!=', value: '' }]);
    assert.deepEqual(reqs('=b'), [{ field: '', operator: '=', value: 'b' }]);
  });

  it('drops a requirement whose field and value are both empty', () => {
    for (const text of ['=', '==', '!=', '=,=', '!=,a=b']) {
      assert.ok(parseFieldSelector(text).requirements.every((r) => r.field !== '' || r.value !== ''), text);
    }
    assert.ok(parseFieldSelector('=').empty());
    assert.ok(parseFieldSelector('!=').empty());
    assert.equal(parseFieldSelector('!=,a=b').toString(), 'a=b');
  });

  it('keeps whitespace: it is part of fields and values', () => {
    assert.deepEqual(reqs(' a = b '), [{ field: ' a ', operator: '=', value: ' b ' }]);
  });

  it('parses several comma-separated requirements, sorted by their written text', () => {
    assert.deepEqual(reqs('status.phase!=Running,spec.nodeName=n1'), [
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
    // "a!=x" sorts before "a=y" because '!' < '='.
    assert.deepEqual(reqs('a=y,a!=x').map((r) => r.operator), ['!=', '=']);
  });

  it('skips empty terms', () => {
    assert.deepEqual(reqs(',a=b,,'), [{ field: 'a', operator: '=', value: 'b' }]);
    assert.ok(parseFieldSelector(',').empty());
  });
});

describe('parseFieldSelector: escaping', () => {
  it('unescapes \\, \\= and \\\\ in values', () => {
    assert.deepEqual(reqs('a=b\\,c'), [{ field: 'a', operator: '=', value: 'b,c' }]);
    assert.deepEqual(reqs('a=b\\=c'), [{ field: 'a', operator: '=', value: 'b=c' }]);
    assert.deepEqual(reqs('a=b\\\\c'), [{ field: 'a', operator: '=', value: 'b\\c' }]);
    assert.deepEqual(reqs('a=\\\\,b=c'), [
      { field: 'a', operator: '=', value: '\\' },
      { field: 'b', operator: '=', value: 'c' },
    ]);
  });

  it('does not split at an escaped comma', () => {
    assert.deepEqual(reqs('x=a\\,b,c=d'), [
      { field: 'c', operator: '=', value: 'd' },
      { field: 'x', operator: '=', value: 'a,b' },
    ]);
  });

  it('round-trips values through toString', () => {
    for (const value of ['', 'plain', ',', '=', '\\', 'a,b=c\\d', '\\,\\=', 'é😀']) {
      const text = oneTermEqualSelector('f', value).toString();
      assert.deepEqual(reqs(text), [{ field: 'f', operator: '=', value }], text);
    }
  });
});

describe('parseFieldSelector: errors', () => {
  const cases: Array<[string, string]> = [
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['spec.nodeName', "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"],
    ['b=1,a', "invalid selector: 'b=1,a'; can't understand 'a'"],
    ['a!b', "invalid selector: 'a!b'; can't understand 'a!b'"],
    ['a<1', "invalid selector: 'a<1'; can't understand 'a<1'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!=b==c', 'invalid field selector: unescaped character in value: 61'],
    ['a==b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a\\=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=\\n', 'invalid field selector: invalid escape sequence: \\n'],
    // the first failing term in sorted order wins
    ['b=x\\y,a', "invalid selector: 'b=x\\y,a'; can't understand 'a'"],
    ['b,a=x\\y', 'invalid field selector: invalid escape sequence: \\y'],
  ];
  for (const [text, message] of cases) {
    it(`rejects ${JSON.stringify(text)}`, () => assertBadRequest(() => parseFieldSelector(text), message));
  }
});

describe('FieldSelector', () => {
  it('matches = and != against fields, an absent field being ""', () => {
    const s = parseFieldSelector('spec.nodeName=n1,status.phase!=Running');
    assert.ok(s.matches({ 'spec.nodeName': 'n1', 'status.phase': 'Pending' }));
    assert.ok(s.matches({ 'spec.nodeName': 'n1' }));
    assert.ok(!s.matches({ 'spec.nodeName': 'n2', 'status.phase': 'Pending' }));
    assert.ok(!s.matches({ 'spec.nodeName': 'n1', 'status.phase': 'Running' }));
    assert.ok(parseFieldSelector('spec.nodeName=').matches({}));
    assert.ok(parseFieldSelector('spec.nodeName==').matches({ 'spec.nodeName': '' }));
    assert.ok(!parseFieldSelector('spec.nodeName!=').matches({}));
    assert.ok(parseFieldSelector('a!=x').matches({}));
  });

  it('matches escaped values literally', () => {
    assert.ok(parseFieldSelector('metadata.name=a\\,b').matches({ 'metadata.name': 'a,b' }));
  });

  it('ignores inherited properties of the fields object', () => {
    assert.ok(parseFieldSelector('constructor=').matches({}));
    assert.ok(!parseFieldSelector('toString!=').matches({}));
  });

  it('is empty only without requirements', () => {
    assert.ok(parseFieldSelector('').empty());
    assert.ok(!parseFieldSelector('a=b').empty());
    assert.ok(!parseFieldSelector('a!=b').empty());
  });

  it('reports the value an equality requires of a field', () => {
    const s = parseFieldSelector('spec.nodeName==n1,status.phase!=Running,metadata.name=x');
    assert.equal(s.requiredValue('spec.nodeName'), 'n1');
    assert.equal(s.requiredValue('metadata.name'), 'x');
    assert.equal(s.requiredValue('status.phase'), undefined);
    assert.equal(s.requiredValue('metadata.namespace'), undefined);
    assert.equal(parseFieldSelector('spec.nodeName=').requiredValue('spec.nodeName'), '');
    assert.equal(parseFieldSelector('a!=1,a=2').requiredValue('a'), '2');
  });

  it('prints the canonical text: sorted, == as =, values escaped', () => {
    assert.equal(parseFieldSelector('status.phase!=Running,spec.nodeName==n1').toString(), 'spec.nodeName=n1,status.phase!=Running');
    assert.equal(parseFieldSelector('a=b\\,c\\=d\\\\e').toString(), 'a=b\\,c\\=d\\\\e');
    assert.equal(parseFieldSelector(',,a=b,').toString(), 'a=b');
    assert.equal(parseFieldSelector('').toString(), '');
  });

  it('returns frozen requirements', () => {
    const s = parseFieldSelector('a=b');
    assert.ok(Object.isFrozen(s.requirements) && Object.isFrozen(s.requirements[0]));
  });
});

describe('field selector factories', () => {
  it('everythingFields matches everything', () => {
    assert.ok(everythingFields().empty());
    assert.ok(everythingFields().matches({}));
    assert.equal(everythingFields().toString(), '');
    assert.equal(everythingFields().requiredValue('a'), undefined);
  });

  it('oneTermEqualSelector requires one field', () => {
    const s = oneTermEqualSelector('metadata.name', 'web');
    assert.equal(s.toString(), 'metadata.name=web');
    assert.equal(s.requiredValue('metadata.name'), 'web');
    assert.ok(s.matches({ 'metadata.name': 'web' }));
    assert.ok(!s.empty());
  });

  it('fieldSelectorFromSet requires each field, in field order', () => {
    const s = fieldSelectorFromSet({ 'spec.nodeName': 'n1', 'metadata.name': 'a,b' });
    assert.equal(s.toString(), 'metadata.name=a\\,b,spec.nodeName=n1');
    assert.ok(s.matches({ 'spec.nodeName': 'n1', 'metadata.name': 'a,b' }));
    assert.ok(fieldSelectorFromSet(undefined).empty());
    assert.ok(fieldSelectorFromSet({}).empty());
  });

  it('newFieldSelector keeps the given order and drops empty requirements', () => {
    const s = newFieldSelector([
      { field: 'b', operator: '=', value: '1' },
      { field: '', operator: '=', value: '' },
      { field: 'a', operator: '!=', value: '2' },
    ]);
    assert.equal(s.toString(), 'b=1,a!=2');
    assert.ok(newFieldSelector([]).empty());
  });
});

describe('checkFieldSelectorFields', () => {
  it('accepts supported fields and returns an equal selector', () => {
    const s = checkFieldSelectorFields(parseFieldSelector('spec.nodeName=n1,status.phase!=Running'), POD_FIELDS);
    assert.equal(s.toString(), 'spec.nodeName=n1,status.phase!=Running');
    assert.ok(checkFieldSelectorFields(parseFieldSelector(''), []).empty());
  });

  it("rejects the first unsupported field with upstream's message", () => {
    assertBadRequest(() => checkFieldSelectorFields(parseFieldSelector('status.hostIP=192.168.10.101'), POD_FIELDS), 'field label not supported: status.hostIP');
    assertBadRequest(() => checkFieldSelectorFields(parseFieldSelector('z=1,metadata.name=a,b=2'), POD_FIELDS), 'field label not supported: b');
    assertBadRequest(() => checkFieldSelectorFields(parseFieldSelector('=x'), POD_FIELDS), 'field label not supported: ');
  });

  it('rewrites aliases before matching', () => {
    const s = checkFieldSelectorFields(parseFieldSelector('spec.host=n1'), POD_FIELDS, { aliases: { 'spec.host': 'spec.nodeName' } });
    assert.equal(s.toString(), 'spec.nodeName=n1');
    assert.equal(s.requiredValue('spec.nodeName'), 'n1');
    assert.ok(s.matches({ 'spec.nodeName': 'n1' }));
  });

  it('does not treat inherited names as aliases', () => {
    assertBadRequest(() => checkFieldSelectorFields(parseFieldSelector('toString=x'), POD_FIELDS, { aliases: {} }), 'field label not supported: toString');
  });
});

describe('checkDefaultFieldSelectorFields', () => {
  it('accepts metadata.name and metadata.namespace', () => {
    assert.deepEqual(DEFAULT_SELECTABLE_FIELDS, ['metadata.name', 'metadata.namespace']);
    const s = checkDefaultFieldSelectorFields(parseFieldSelector('metadata.namespace!=kube-system,metadata.name=web'));
    assert.equal(s.toString(), 'metadata.name=web,metadata.namespace!=kube-system');
  });

  it("rejects anything else with the default conversion's message", () => {
    assertBadRequest(
      () => checkDefaultFieldSelectorFields(parseFieldSelector('foo.bar=baz')),
      '"foo.bar" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    assertBadRequest(
      () => checkDefaultFieldSelectorFields(parseFieldSelector('spec.csi.driver=x')),
      '"spec.csi.driver" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });
});
