import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../status.js';
import {
  formatLabelRequirement,
  labelRequirementError,
  labelRequirementMatches,
  newLabelRequirement,
  parseGoInt64,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.js';

const NAME_REGEX =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const req = (key: string, operator: LabelOperator, values: string[] = []): LabelRequirement => ({ key, operator, values });

function assertBadRequest(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, message);
    return true;
  });
}

describe('parseGoInt64', () => {
  it('parses what strconv.ParseInt(s, 10, 64) parses', () => {
    assert.equal(parseGoInt64('0'), 0n);
    assert.equal(parseGoInt64('42'), 42n);
    assert.equal(parseGoInt64('007'), 7n);
    assert.equal(parseGoInt64('-5'), -5n);
    assert.equal(parseGoInt64('+5'), 5n);
    assert.equal(parseGoInt64('9223372036854775807'), 9223372036854775807n);
    assert.equal(parseGoInt64('-9223372036854775808'), -9223372036854775808n);
  });

  it('rejects everything else', () => {
    for (const s of ['', '+', '-', ' 1', '1 ', '1.0', '1e3', '0x10', '1_000', 'a', '9223372036854775808', '-9223372036854775809']) {
      assert.equal(parseGoInt64(s), undefined, s);
    }
  });
});

describe('newLabelRequirement', () => {
  it('builds valid requirements of every operator', () => {
    assert.deepEqual(newLabelRequirement('x', 'in', ['foo']), req('x', 'in', ['foo']));
    assert.deepEqual(newLabelRequirement('x', 'notin', ['foo', '']), req('x', 'notin', ['foo', '']));
    assert.deepEqual(newLabelRequirement('x', '=', ['']), req('x', '=', ['']));
    assert.deepEqual(newLabelRequirement('x', '==', ['a']), req('x', '==', ['a']));
    assert.deepEqual(newLabelRequirement('x', '!=', ['a']), req('x', '!=', ['a']));
    assert.deepEqual(newLabelRequirement('x', 'exists', []), req('x', 'exists'));
    assert.deepEqual(newLabelRequirement('x', '!', []), req('x', '!'));
    assert.deepEqual(newLabelRequirement('y', 'gt', ['1']), req('y', 'gt', ['1']));
    assert.deepEqual(newLabelRequirement('z', 'lt', ['6']), req('z', 'lt', ['6']));
    assert.deepEqual(newLabelRequirement('1foo', 'in', ['bar']), req('1foo', 'in', ['bar']));
    assert.deepEqual(newLabelRequirement('1234', 'in', ['bar']), req('1234', 'in', ['bar']));
  });

  it('returns a frozen copy of the values', () => {
    const values = ['a'];
    const r = newLabelRequirement('x', 'in', values);
    values.push('b');
    assert.deepEqual(r.values, ['a']);
    assert.ok(Object.isFrozen(r) && Object.isFrozen(r.values));
  });

  it('rejects a wrong number of values with upstream messages', () => {
    assertBadRequest(() => newLabelRequirement('x', 'in', []), "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
    assertBadRequest(() => newLabelRequirement('x', 'notin', []), "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
    assertBadRequest(() => newLabelRequirement('x', '=', ['a', 'b']), 'values: Invalid value: []string{"a", "b"}: exact-match compatibility requires one single value');
    assertBadRequest(() => newLabelRequirement('x', '!=', []), 'values: Invalid value: []string(nil): exact-match compatibility requires one single value');
    assertBadRequest(() => newLabelRequirement('x', 'exists', ['a']), 'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist');
    assertBadRequest(() => newLabelRequirement('x', '!', ['a']), 'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist');
    assertBadRequest(() => newLabelRequirement('x', 'gt', []), "values: Invalid value: []string(nil): for 'Gt', 'Lt' operators, exactly one value is required");
  });

  it('rejects non-integer values for gt and lt', () => {
    assertBadRequest(() => newLabelRequirement('foo', 'gt', ['bar']), `values[0]: Invalid value: "bar": for 'Gt', 'Lt' operators, the value must be an integer`);
    assertBadRequest(() => newLabelRequirement('barz', 'lt', ['blah']), `values[0]: Invalid value: "blah": for 'Gt', 'Lt' operators, the value must be an integer`);
    assertBadRequest(
      () => newLabelRequirement('x', 'gt', ['1', 'b']),
      `[values: Invalid value: []string{"1", "b"}: for 'Gt', 'Lt' operators, exactly one value is required, values[1]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer]`,
    );
  });

  it('reports a negative gt value as an invalid label value', () => {
    assertBadRequest(() => newLabelRequirement('x', 'gt', ['-1']), `values[0][x]: Invalid value: "-1": ${VALUE_REGEX}`);
  });

  it('rejects an invalid key under the key path', () => {
    assertBadRequest(() => newLabelRequirement('a b', 'exists', []), `key: Invalid value: "a b": name part ${NAME_REGEX}`);
    assertBadRequest(() => newLabelRequirement('a'.repeat(254), 'exists', []), 'key: Invalid value: "' + 'a'.repeat(254) + '": name part must be no more than 63 bytes');
  });

  it('rejects invalid values under values[i][key]', () => {
    assertBadRequest(() => newLabelRequirement('x', 'in', ['ok', 'b$']), `values[1][x]: Invalid value: "b$": ${VALUE_REGEX}`);
  });

  it('aggregates several errors in order, without duplicates', () => {
    assertBadRequest(
      () => newLabelRequirement('-', 'exists', ['-']),
      `[key: Invalid value: "-": name part ${NAME_REGEX}, values: Invalid value: []string{"-"}: values set must be empty for exists and does not exist, values[0][-]: Invalid value: "-": ${VALUE_REGEX}]`,
    );
  });

  it('starts paths from a given root', () => {
    assertBadRequest(() => newLabelRequirement('x', 'in', [], { path: 'spec.selector' }), "spec.selector.values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
    assertBadRequest(() => newLabelRequirement('x', 'in', ['$'], { path: 'spec.selector' }), `spec.selector.values[0][x]: Invalid value: "$": ${VALUE_REGEX}`);
  });
});

describe('labelRequirementError', () => {
  it('is undefined for a valid requirement', () => {
    assert.equal(labelRequirementError('x', 'in', ['a']), undefined);
  });

  it('rejects an unknown operator with the supported list', () => {
    assert.equal(
      labelRequirementError('x', 'like', ['a']),
      'operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    );
  });
});

describe('labelRequirementMatches', () => {
  const cases: Array<[LabelRequirement, Record<string, string> | undefined, boolean]> = [
    [req('x', 'in', ['foo']), { x: 'foo' }, true],
    [req('x', 'in', ['foo', 'bar']), { x: 'bar' }, true],
    [req('x', 'in', ['foo']), { x: 'baz' }, false],
    [req('x', 'in', ['foo']), {}, false],
    [req('x', 'in', ['']), { x: '' }, true],
    [req('x', 'in', ['']), { y: 'baz' }, false],
    [req('x', '=', ['a']), { x: 'a' }, true],
    [req('x', '==', ['a']), { x: 'b' }, false],
    [req('x', '=', ['']), {}, false],
    [req('x', 'notin', ['a']), { x: 'b' }, true],
    [req('x', 'notin', ['a']), { x: 'a' }, false],
    [req('x', 'notin', ['']), { y: '' }, true],
    [req('x', 'notin', ['a']), undefined, true],
    [req('x', '!=', ['a']), {}, true],
    [req('x', '!=', ['a']), { x: 'a' }, false],
    [req('x', 'exists'), { x: '' }, true],
    [req('x', 'exists'), { y: 'x' }, false],
    [req('x', 'exists'), undefined, false],
    [req('x', '!'), { y: 'x' }, true],
    [req('x', '!'), { x: '' }, false],
    [req('x', '!'), undefined, true],
    [req('z', 'gt', ['1']), { z: '2' }, true],
    [req('z', 'gt', ['1']), { z: '1' }, false],
    [req('z', 'gt', ['1']), { z: 'v2' }, false],
    [req('z', 'gt', ['1']), {}, false],
    [req('z', 'gt', ['-3']), { z: '-2' }, true],
    [req('z', 'lt', ['1']), { z: '0' }, true],
    [req('z', 'lt', ['1']), { z: '+0' }, true],
    [req('z', 'lt', ['1']), { z: '1' }, false],
    [req('z', 'lt', ['10']), { z: '9' }, true],
    [req('z', 'gt', ['9223372036854775806']), { z: '9223372036854775807' }, true],
    [req('z', 'gt', ['1']), { z: '9223372036854775808' }, false],
    [req('z', 'gt', ['1', '2']), { z: '5' }, false],
  ];
  for (const [r, labels, want] of cases) {
    it(`${formatLabelRequirement(r)} on ${JSON.stringify(labels)} is ${want}`, () => {
      assert.equal(labelRequirementMatches(r, labels), want);
    });
  }

  it('ignores inherited properties of the labels object', () => {
    assert.equal(labelRequirementMatches(req('constructor', 'exists'), {}), false);
    assert.equal(labelRequirementMatches(req('toString', '!'), {}), true);
    assert.equal(labelRequirementMatches(req('__proto__', 'exists'), {}), false);
  });
});

describe('formatLabelRequirement', () => {
  it('prints every operator as upstream does', () => {
    assert.equal(formatLabelRequirement(req('x', 'in', ['abc', 'def'])), 'x in (abc,def)');
    assert.equal(formatLabelRequirement(req('x', 'in', ['def', 'abc'])), 'x in (abc,def)');
    assert.equal(formatLabelRequirement(req('y', 'notin', ['jkl'])), 'y notin (jkl)');
    assert.equal(formatLabelRequirement(req('z', 'notin', [''])), 'z notin ()');
    assert.equal(formatLabelRequirement(req('z', 'in', ['', 'a'])), 'z in (,a)');
    assert.equal(formatLabelRequirement(req('x', '=', ['abc'])), 'x=abc');
    assert.equal(formatLabelRequirement(req('y', '==', ['jkl'])), 'y==jkl');
    assert.equal(formatLabelRequirement(req('z', '!=', ['a'])), 'z!=a');
    assert.equal(formatLabelRequirement(req('x', '=', [''])), 'x=');
    assert.equal(formatLabelRequirement(req('z', 'exists')), 'z');
    assert.equal(formatLabelRequirement(req('z', '!')), '!z');
    assert.equal(formatLabelRequirement(req('x', 'gt', ['2'])), 'x>2');
    assert.equal(formatLabelRequirement(req('y', 'lt', ['8'])), 'y<8');
  });

  it('sorts values byte-wise and keeps duplicates', () => {
    assert.equal(formatLabelRequirement(req('x', 'in', ['b', 'a', 'B', 'a'])), 'x in (B,a,a,b)');
  });

  it('does not reorder the requirement itself', () => {
    const r = req('x', 'in', ['b', 'a']);
    formatLabelRequirement(r);
    assert.deepEqual(r.values, ['b', 'a']);
  });
});
