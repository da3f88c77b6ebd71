import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../status.js';
import {
  everything,
  labelSelectorFromObject,
  labelSelectorFromSet,
  newLabelRequirement,
  newLabelSelector,
  nothing,
  parseLabelSelector,
  type LabelRequirement,
} from './label-selector.js';

const NAME_REGEX =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PREFIX_REGEX =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const OPERATORS = 'in, notin, =, ==, !=, gt, lt';

function assertBadRequest(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, `not a StatusError: ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.status.status, 'Failure');
    assert.equal(e.message, message);
    return true;
  });
}

const reqs = (text: string): LabelRequirement[] => [...parseLabelSelector(text).requirements];

describe('parseLabelSelector: operators', () => {
  it('parses = and == and != with one value', () => {
    assert.deepEqual(reqs('x=a'), [{ key: 'x', operator: '=', values: ['a'] }]);
    assert.deepEqual(reqs('x==a'), [{ key: 'x', operator: '==', values: ['a'] }]);
    assert.deepEqual(reqs('x!=a'), [{ key: 'x', operator: '!=', values: ['a'] }]);
  });

  it('parses an empty exact value before a comma or the end', () => {
    assert.deepEqual(reqs('x='), [{ key: 'x', operator: '=', values: [''] }]);
    assert.deepEqual(reqs('x!=,y'), [
      { key: 'x', operator: '!=', values: [''] },
      { key: 'y', operator: 'exists', values: [] },
    ]);
  });

  it('parses in and notin with sorted, de-duplicated values', () => {
    assert.deepEqual(reqs('x in (b,a,b)'), [{ key: 'x', operator: 'in', values: ['a', 'b'] }]);
    assert.deepEqual(reqs('x notin (abc)'), [{ key: 'x', operator: 'notin', values: ['abc'] }]);
  });

  it('parses empty values inside parentheses as upstream does', () => {
    assert.deepEqual(reqs('x in ()')[0]?.values, ['']);
    assert.deepEqual(reqs('x in (,)')[0]?.values, ['']);
    assert.deepEqual(reqs('x in (abc,)')[0]?.values, ['', 'abc']);
    assert.deepEqual(reqs('x in (,abc)')[0]?.values, ['', 'abc']);
    assert.deepEqual(reqs('x in (a,,b)')[0]?.values, ['', 'a', 'b']);
    assert.deepEqual(reqs('x notin (,,)')[0]?.values, ['']);
  });

  it('parses a bare key as exists and !key as does-not-exist', () => {
    assert.deepEqual(reqs('x'), [{ key: 'x', operator: 'exists', values: [] }]);
    assert.deepEqual(reqs('!x'), [{ key: 'x', operator: '!', values: [] }]);
    assert.deepEqual(reqs('! x'), [{ key: 'x', operator: '!', values: [] }]);
  });

  it('parses > and < with integer values', () => {
    assert.deepEqual(reqs('x>1'), [{ key: 'x', operator: 'gt', values: ['1'] }]);
    assert.deepEqual(reqs('x<5'), [{ key: 'x', operator: 'lt', values: ['5'] }]);
    assert.deepEqual(reqs('x>9223372036854775807')[0]?.values, ['9223372036854775807']);
  });

  it('treats in and notin as plain words where a key or value stands', () => {
    assert.deepEqual(reqs('notin=in'), [{ key: 'notin', operator: '=', values: ['in'] }]);
    assert.deepEqual(reqs('in in (in,notin)'), [{ key: 'in', operator: 'in', values: ['in', 'notin'] }]);
    assert.deepEqual(reqs('in'), [{ key: 'in', operator: 'exists', values: [] }]);
    assert.deepEqual(reqs('!notin'), [{ key: 'notin', operator: '!', values: [] }]);
  });

  it('accepts prefixed keys', () => {
    assert.deepEqual(reqs('this-is-a-dns.domain.com/key-with-dash'), [{ key: 'this-is-a-dns.domain.com/key-with-dash', operator: 'exists', values: [] }]);
    assert.deepEqual(reqs('0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)'), [
      { key: '0.1.2.domain/99', operator: 'notin', values: ['10.10.100.1', 'tick.tack.clock'] },
    ]);
  });

  it('parses several requirements and sorts them by key, keeping the order of equal keys', () => {
    assert.deepEqual(
      reqs('x notin (abc,def),bar,z in (),w').map((r) => r.key),
      ['bar', 'w', 'x', 'z'],
    );
    assert.deepEqual(
      reqs('b=1,a!=2,a').map((r) => `${r.key}${r.operator}`),
      ['a!=', 'aexists', 'b='],
    );
  });

  it('returns frozen requirements', () => {
    const s = parseLabelSelector('x in (a)');
    assert.ok(Object.isFrozen(s.requirements));
    assert.ok(Object.isFrozen(s.requirements[0]));
    assert.ok(Object.isFrozen(s.requirements[0]?.values));
  });
});

describe('parseLabelSelector: whitespace', () => {
  it('ignores spaces, tabs, CR and LF around tokens', () => {
    assert.equal(parseLabelSelector(' x = a , y ').toString(), 'x=a,y');
    assert.equal(parseLabelSelector('foo  in\t (abc)').toString(), 'foo in (abc)');
    assert.equal(parseLabelSelector('x notin\n (abc)').toString(), 'x notin (abc)');
    assert.equal(parseLabelSelector('x  notin\t\t\t(abc,def)').toString(), 'x notin (abc,def)');
    assert.equal(parseLabelSelector('\rx').toString(), 'x');
    assert.equal(parseLabelSelector('x in ( a , b )').toString(), 'x in (a,b)');
  });

  it('treats blank text as selecting everything', () => {
    for (const text of ['', ' ', '\t\r\n ']) {
      const s = parseLabelSelector(text);
      assert.ok(s.empty(), JSON.stringify(text));
      assert.equal(s.toString(), '');
      assert.ok(s.matches({ a: 'b' }));
    }
  });

  it('does not treat other whitespace as a separator', () => {
    assertBadRequest(() => parseLabelSelector('x\u00a0y'), `unable to parse requirement: <nil>: Invalid value: "x\\u00a0y": name part ${NAME_REGEX}`);
    assertBadRequest(() => parseLabelSelector('x\fy'), `unable to parse requirement: <nil>: Invalid value: "x\\fy": name part ${NAME_REGEX}`);
  });

  it('round-trips the good strings of upstream, spaces removed', () => {
    for (const text of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5']) {
      assert.equal(parseLabelSelector(text).toString(), text.replaceAll(' ', ''), text);
    }
  });
});

describe('parseLabelSelector: errors', () => {
  const cases: Array<[string, string]> = [
    // top-level grammar
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['(a)', "found '(', expected: !, identifier, or 'end of string'"],
    ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    ['x,=y', "found '=', expected: identifier after ','"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x in (a) y', "found 'y', expected: ',' or 'end of string'"],
    // inside a requirement
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['!,', "unable to parse requirement: found ',', expected: identifier"],
    ['a b', `unable to parse requirement: found 'b', expected: ${OPERATORS}`],
    ['a (b)', `unable to parse requirement: found '(', expected: ${OPERATORS}`],
    ['a ! b', `unable to parse requirement: found '!', expected: ${OPERATORS}`],
    ['x in', "unable to parse requirement: found '' expected: '('"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x notin ,', "unable to parse requirement: found ',' expected: '('"],
    ['x in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['x in ((a)', "unable to parse requirement: found '(', expected: ',', ')' or identifier"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x in (a,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['x in (,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['x==!', "unable to parse requirement: found '!', expected: identifier"],
    ['x!==a', "unable to parse requirement: found '=', expected: identifier"],
    // values
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>1.5', `unable to parse requirement: values[0]: Invalid value: "1.5": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>99999999999999999999', `unable to parse requirement: values[0]: Invalid value: "99999999999999999999": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${VALUE_REGEX}`],
    ['x=-a', `unable to parse requirement: values[0][x]: Invalid value: "-a": ${VALUE_REGEX}`],
    ['x=a/b', `unable to parse requirement: values[0][x]: Invalid value: "a/b": ${VALUE_REGEX}`],
    ['x=' + 'a'.repeat(64), `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes`],
    [
      'x>b$',
      `unable to parse requirement: [values[0]: Invalid value: "b$": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "b$": ${VALUE_REGEX}]`,
    ],
    [
      'x in (c$,b$)',
      `unable to parse requirement: [values[0][x]: Invalid value: "b$": ${VALUE_REGEX}, values[1][x]: Invalid value: "c$": ${VALUE_REGEX}]`,
    ],
    // keys
    ['a$b', `unable to parse requirement: <nil>: Invalid value: "a$b": name part ${NAME_REGEX}`],
    ['-x=a', `unable to parse requirement: <nil>: Invalid value: "-x": name part ${NAME_REGEX}`],
    ['!x.', `unable to parse requirement: <nil>: Invalid value: "x.": name part ${NAME_REGEX}`],
    ['x/', `unable to parse requirement: <nil>: Invalid value: "x/": name part must be non-empty; name part ${NAME_REGEX}`],
    ['/x', 'unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty'],
    ['A.com/x', `unable to parse requirement: <nil>: Invalid value: "A.com/x": prefix part ${PREFIX_REGEX}`],
    [
      'a/b/c in (d)',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key ${NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    ['a'.repeat(64), `unable to parse requirement: <nil>: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 bytes`],
    ['a"b', `unable to parse requirement: <nil>: Invalid value: "a\\"b": name part ${NAME_REGEX}`],
    // a key error comes before anything after the key
    ['a$ b', `unable to parse requirement: <nil>: Invalid value: "a$": name part ${NAME_REGEX}`],
    // the first failing requirement wins, in written order
    ['b$,a b', `unable to parse requirement: <nil>: Invalid value: "b$": name part ${NAME_REGEX}`],
  ];
  for (const [text, message] of cases) {
    it(`rejects ${JSON.stringify(text)}`, () => assertBadRequest(() => parseLabelSelector(text), message));
  }
});

describe('parseLabelSelector: matching', () => {
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['', { x: 'y' }, true],
    ['', undefined, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['!x', undefined, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', undefined, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['x>1', { x: 'two' }, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=', {}, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in ()', { x: '' }, true],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['foo=bar', { foo: 'bar', baz: 'blah' }, true],
    ['baz=blah', { foo: 'bar', baz: 'blah' }, true],
    ['foo=bar,baz=blah', { foo: 'bar', baz: 'blah' }, true],
    ['foo=blah', { foo: 'bar', baz: 'blah' }, false],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
    ['x,y in (a)', { x: 'z', y: 'a' }, true],
    ['x,y in (a)', { y: 'a' }, false],
  ];
  for (const [text, labels, want] of cases) {
    it(`${JSON.stringify(text)} on ${JSON.stringify(labels)} is ${want}`, () => assert.equal(parseLabelSelector(text).matches(labels), want));
  }
});

describe('parseLabelSelector: canonical text', () => {
  it('sorts requirements by key and in/notin values', () => {
    assert.equal(parseLabelSelector('x notin (def,abc),bar,z in (),w').toString(), 'bar,w,x notin (abc,def),z in ()');
    assert.equal(parseLabelSelector('y in (mno,jkl),x notin (abc),z notin ()').toString(), 'x notin (abc),y in (jkl,mno),z notin ()');
    assert.equal(parseLabelSelector('z, z!=a, y==jkl, x=abc').toString(), 'x=abc,y==jkl,z,z!=a');
    assert.equal(parseLabelSelector('z,y<8,x>2').toString(), 'x>2,y<8,z');
    assert.equal(parseLabelSelector('x in (abc,)').toString(), 'x in (,abc)');
  });

  it('is deterministic whatever the written order', () => {
    assert.equal(parseLabelSelector('x=a,a=x').toString(), parseLabelSelector('a=x,x=a').toString());
  });

  it('parses its own output to the same selector', () => {
    for (const text of ['x in (b,a),!y,z>3', 'a==b,a!=c,a', 'example.com/k notin (,x)', 'in in (in)']) {
      const once = parseLabelSelector(text);
      const twice = parseLabelSelector(once.toString());
      assert.equal(twice.toString(), once.toString(), text);
      assert.deepEqual(twice.requirements, once.requirements, text);
    }
  });
});

describe('LabelSelector', () => {
  it('reports empty only when nothing is required', () => {
    assert.ok(parseLabelSelector('').empty());
    assert.ok(!parseLabelSelector('x').empty());
  });

  it('finds an exact-match requirement for a key', () => {
    const s = parseLabelSelector('a=1,b==2,c in (3),d in (4,5),e!=6,f,g>7');
    assert.equal(s.requiresExactMatch('a'), '1');
    assert.equal(s.requiresExactMatch('b'), '2');
    assert.equal(s.requiresExactMatch('c'), '3');
    assert.equal(s.requiresExactMatch('d'), undefined);
    assert.equal(s.requiresExactMatch('e'), undefined);
    assert.equal(s.requiresExactMatch('f'), undefined);
    assert.equal(s.requiresExactMatch('g'), undefined);
    assert.equal(s.requiresExactMatch('h'), undefined);
  });

  it('looks only at the first requirement on a key, as upstream does', () => {
    assert.equal(parseLabelSelector('a!=1,a=2').requiresExactMatch('a'), undefined);
    assert.equal(parseLabelSelector('a=2,a!=1').requiresExactMatch('a'), '2');
  });

  it('adds requirements into a new, re-sorted selector', () => {
    const base = parseLabelSelector('b=1');
    const more = base.add(newLabelRequirement('a', 'exists', []), newLabelRequirement('c', '!', []));
    assert.equal(more.toString(), 'a,b=1,!c');
    assert.equal(base.toString(), 'b=1');
  });
});

describe('everything and nothing', () => {
  it('everything matches all labels and is empty', () => {
    assert.ok(everything().matches({ x: 'y' }));
    assert.ok(everything().matches(undefined));
    assert.ok(everything().empty());
    assert.ok(!everything().matchesNothing());
    assert.equal(everything().toString(), '');
    assert.deepEqual(everything().requirements, []);
  });

  it('nothing matches no labels, is not empty, and ignores additions', () => {
    assert.ok(!nothing().matches({ x: 'y' }));
    assert.ok(!nothing().matches(undefined));
    assert.ok(!nothing().empty());
    assert.ok(nothing().matchesNothing());
    assert.equal(nothing().toString(), '');
    assert.deepEqual(nothing().requirements, []);
    assert.equal(nothing().requiresExactMatch('x'), undefined);
    assert.equal(nothing().add(newLabelRequirement('x', 'exists', [])), nothing());
  });

  it('adding to everything restricts it', () => {
    const s = everything().add(newLabelRequirement('x', 'exists', []));
    assert.ok(!s.empty());
    assert.ok(everything().empty());
  });
});

describe('newLabelSelector', () => {
  it('sorts requirements by key', () => {
    assert.equal(newLabelSelector([newLabelRequirement('b', '=', ['1']), newLabelRequirement('a', 'in', ['y', 'x'])]).toString(), 'a in (x,y),b=1');
  });

  it('selects everything without requirements', () => {
    assert.ok(newLabelSelector([]).empty());
  });
});

describe('labelSelectorFromSet', () => {
  it('requires each label exactly', () => {
    const s = labelSelectorFromSet({ tier: 'db', app: 'web' });
    assert.equal(s.toString(), 'app=web,tier=db');
    assert.ok(s.matches({ app: 'web', tier: 'db', extra: 'x' }));
    assert.ok(!s.matches({ app: 'web' }));
    assert.equal(s.requiresExactMatch('tier'), 'db');
  });

  it('selects everything for an empty or absent set', () => {
    assert.ok(labelSelectorFromSet({}).empty());
    assert.ok(labelSelectorFromSet(undefined).empty());
    assert.ok(labelSelectorFromSet(undefined).matches({ a: 'b' }));
  });
});

describe('labelSelectorFromObject', () => {
  it('selects nothing for an absent selector', () => {
    assert.ok(labelSelectorFromObject(undefined).matchesNothing());
    assert.ok(labelSelectorFromObject(null).matchesNothing());
    assert.ok(!labelSelectorFromObject(undefined).matches({}));
  });

  it('selects everything for an empty selector', () => {
    for (const sel of [{}, { matchLabels: {} }, { matchExpressions: [] }, { matchLabels: null, matchExpressions: null }]) {
      const s = labelSelectorFromObject(sel);
      assert.ok(s.empty(), JSON.stringify(sel));
      assert.ok(s.matches({ a: 'b' }));
    }
  });

  it('combines matchLabels and matchExpressions, sorted by key', () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: 'web', tier: 'frontend' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'zone', operator: 'NotIn', values: ['b'] },
        { key: 'owner', operator: 'Exists', values: [] },
      ],
    });
    assert.equal(s.toString(), 'app=web,!canary,env in (dev,prod),owner,tier=frontend,zone notin (b)');
    assert.ok(s.matches({ app: 'web', tier: 'frontend', env: 'dev', owner: 'me' }));
    assert.ok(!s.matches({ app: 'web', tier: 'frontend', env: 'dev', owner: 'me', canary: 'x' }));
    assert.ok(!s.matches({ app: 'web', tier: 'frontend', env: 'qa', owner: 'me' }));
    assert.ok(!s.matches({ app: 'web', tier: 'frontend', env: 'dev', owner: 'me', zone: 'b' }));
  });

  it('keeps expression values as given, sorting them only in the text', () => {
    const s = labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'In', values: ['b', 'a', 'b'] }] });
    assert.deepEqual(s.requirements[0]?.values, ['b', 'a', 'b']);
    assert.equal(s.toString(), 'x in (a,b,b)');
  });

  it('rejects an unknown operator', () => {
    assertBadRequest(() => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'Gt', values: ['1'] }] }), '"Gt" is not a valid pod selector operator');
    assertBadRequest(() => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'in', values: ['1'] }] }), '"in" is not a valid pod selector operator');
    assertBadRequest(() => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'toString' }] }), '"toString" is not a valid pod selector operator');
    assertBadRequest(() => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: '' }] }), '"" is not a valid pod selector operator');
  });

  it("rejects what upstream's NewRequirement rejects", () => {
    assertBadRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }),
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    assertBadRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'NotIn' }] }),
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    assertBadRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'x', operator: 'Exists', values: ['a'] }] }),
      'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist',
    );
    assertBadRequest(() => labelSelectorFromObject({ matchLabels: { 'a b': 'c' } }), `key: Invalid value: "a b": name part ${NAME_REGEX}`);
    assertBadRequest(() => labelSelectorFromObject({ matchLabels: { a: 'c d' } }), `values[0][a]: Invalid value: "c d": ${VALUE_REGEX}`);
    assertBadRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'k', operator: 'In', values: ['ok', 'n o'] }] }),
      `values[1][k]: Invalid value: "n o": ${VALUE_REGEX}`,
    );
  });

  it('reports matchLabels before matchExpressions', () => {
    assertBadRequest(
      () => labelSelectorFromObject({ matchLabels: { '-': 'x' }, matchExpressions: [{ key: 'x', operator: 'Bad' }] }),
      `key: Invalid value: "-": name part ${NAME_REGEX}`,
    );
  });
});
