import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goEqual, goFormat, goFormatS, goKind, goTypeName } from './go-values.js';

describe('JSON values as Go sees them', () => {
  it('kinds and type names', () => {
    assert.deepEqual([{}, [], 'a', true, 1, 1.5, null].map(goKind), ['map', 'slice', 'string', 'bool', 'int64', 'float64', 'nil']);
    assert.deepEqual([{}, [], 'a', null].map(goTypeName), ['map[string]interface {}', '[]interface {}', 'string', '<nil>']);
  });
  it('equality is by type and value; an int is not a string', () => {
    assert.ok(goEqual('80', '80'));
    assert.ok(!goEqual(80, '80'));
    assert.ok(goEqual(null, undefined));
    assert.ok(!goEqual({}, {}));
  });
  it('%v prints maps with sorted keys, lists with spaces, and floats as Go does', () => {
    assert.equal(goFormat({ b: [1, 'x'], a: { c: null }, d: true }), 'map[a:map[c:<nil>] b:[1 x] d:true]');
    assert.equal(goFormat(1.5), '1.5');
    assert.equal(goFormat(0.00001), '1e-05');
    assert.equal(goFormat(1234567.5), '1.2345675e+06');
  });
  it('%s of a value that is not a string', () => {
    assert.equal(goFormatS('x'), 'x');
    assert.equal(goFormatS(3), '%!s(int64=3)');
    assert.equal(goFormatS(null), '%!s(<nil>)');
  });
});
