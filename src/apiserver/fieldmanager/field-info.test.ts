import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEDUCED, fieldBefore, fieldInfo, fieldTable } from './field-info.js';
import { compareStrings } from './path-element.js';
import { builtinTypeSchema, TypeSchema } from './schema.js';
import { fillFields } from './value-structs.js';

const schema = new TypeSchema({
  Thing: {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'test', version: 'v1', kind: 'Thing' }],
    properties: { zeta: { type: 'string' }, Alpha: { type: 'string' }, alpha: { type: 'string' }, 'é': { type: 'string' }, b10: { type: 'string' }, b2: { type: 'string' } },
    additionalProperties: { type: 'string' },
  },
  Closed: { type: 'object', properties: { x: { type: 'string' } } },
});
const map = schema.resolve(schema.typeOfKind('test', 'v1', 'Thing')).map!;

describe('field tables', () => {
  it('rank the declared fields in Go\'s string order, and the other names not at all', () => {
    const names = [...map.fields.keys()];
    const byRank = names.map((n) => fieldInfo(schema, map, n)).sort((a, b) => a.rank - b.rank).map((i) => i.name);
    assert.deepEqual(byRank, [...names].sort(compareStrings));
    const other = fieldInfo(schema, map, 'other');
    assert.equal(other.rank, -1);
    assert.equal(other.key, 'f:other');
    assert.deepEqual(other.element, { field: 'other' });
    assert.equal(other.type, map.element);
  });

  it('give one info per name, declared or not, and keep a bounded number of other names', () => {
    assert.equal(fieldInfo(schema, map, 'zeta'), fieldInfo(schema, map, 'zeta'));
    assert.equal(fieldInfo(schema, map, 'label'), fieldInfo(schema, map, 'label'));
    for (let i = 0; i < 2500; i++) assert.equal(fieldInfo(schema, map, `n${i}`).key, `f:n${i}`);
    // The declared ones stay, with their ranks and plans.
    const zeta = fieldInfo(schema, map, 'zeta');
    assert.equal(zeta.rank, [...map.fields.keys()].sort(compareStrings).indexOf('zeta'));
    assert.equal(fieldTable(schema, map).info('zeta'), zeta);
    assert.equal(fieldInfo(schema, map, 'n2499').rank, -1);
  });

  it('type the names a map does not declare nor allow as deduced', () => {
    const closed = schema.resolve({ named: 'Closed' }).map!;
    assert.equal(fieldInfo(schema, closed, 'y').type, DEDUCED);
  });

  it('order infos as their names, declared or not', () => {
    const names = ['zeta', 'Alpha', 'alpha', 'é', 'b10', 'b2', 'b1', 'a', 'Z', '\u{1F600}', '\uFFFF', ''];
    for (const a of names) {
      for (const b of names) {
        assert.equal(fieldBefore(fieldInfo(schema, map, a), fieldInfo(schema, map, b)), compareStrings(a, b) < 0, `${a} ${b}`);
      }
    }
  });

  it('list as infos the declared fields completion fills in', () => {
    const s = builtinTypeSchema();
    const podSpec = s.resolve(s.resolve(s.typeOfKind('', 'v1', 'Pod')).map!.fields.get('spec')!).map!;
    const fills = fieldTable(s, podSpec).fills;
    assert.deepEqual(
      fills.map((i) => i.name),
      fillFields(s, podSpec).map((f) => f.name),
    );
    assert.ok(fills.some((i) => i.name === 'containers'));
    for (const i of fills) assert.equal(i, fieldInfo(s, podSpec, i.name));
  });
});
