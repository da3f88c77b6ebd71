import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNodeSelector, parsePreferredTerms, requiredNodeAffinity } from './node-selector.js';
import { makeNode, makePod } from './test-fixtures.js';

const zoneA = makeNode('a', { labels: { zone: 'a', gen: '5' } });
const zoneB = makeNode('b', { labels: { zone: 'b', gen: '3' } });
const bare = makeNode('c');

describe('parseNodeSelector', () => {
  it('ORs terms and ANDs requirements, with every operator', () => {
    const cases: Array<[string, string[] | undefined, Array<[string, boolean]>]> = [
      ['In', ['a'], [['a', true], ['b', false], ['c', false]]],
      ['NotIn', ['a'], [['a', false], ['b', true], ['c', true]]],
      ['Exists', undefined, [['a', true], ['b', true], ['c', false]]],
      ['DoesNotExist', undefined, [['a', false], ['b', false], ['c', true]]],
    ];
    for (const [operator, values, want] of cases) {
      const s = parseNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator, ...(values === undefined ? {} : { values }) }] }] });
      assert.deepEqual(s.errors, []);
      for (const [name, match] of want) assert.equal(s.matches(name === 'a' ? zoneA : name === 'b' ? zoneB : bare), match, `${operator} ${name}`);
    }
    const gt = parseNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }] });
    assert.equal(gt.matches(zoneA), true);
    assert.equal(gt.matches(zoneB), false);
    assert.equal(gt.matches(bare), false);
    const lt = parseNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['4'] }] }] });
    assert.equal(lt.matches(zoneA), false);
    assert.equal(lt.matches(zoneB), true);
    const or = parseNodeSelector({
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['c'] }] }],
    });
    assert.deepEqual([zoneA, zoneB, bare].map((n) => or.matches(n)), [true, false, true]);
    const and = parseNodeSelector({
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }] }],
    });
    assert.deepEqual([zoneA, zoneB, bare].map((n) => and.matches(n)), [false, true, false]);
  });

  it('matches nothing with no terms or only empty terms', () => {
    assert.equal(parseNodeSelector({ nodeSelectorTerms: [] }).matches(zoneA), false);
    assert.equal(parseNodeSelector({ nodeSelectorTerms: [{}] }).matches(zoneA), false);
    assert.equal(parseNodeSelector({ nodeSelectorTerms: [{}] }).matches(undefined), false);
  });

  it('keeps upstream field errors and never matches a bad term, while good terms still match', () => {
    const s = parseNodeSelector(
      {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'zone', operator: 'Foo', values: ['a'] }] },
          { matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['x'] }] },
          { matchFields: [{ key: 'metadata.name', operator: 'Exists' }] },
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }] },
          { matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['x'] }] },
          { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
        ],
      },
      'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution',
    );
    const p = 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
    assert.deepEqual(s.errors, [
      `${p}[0].matchExpressions[0].operator: Unsupported value: "Foo": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
      `${p}[1].matchFields[0].key: Invalid value: "metadata.uid": must be metadata.name`,
      `${p}[2].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"`,
      `${p}[3].matchFields[0].values: Invalid value: []string{"a", "b"}: must have one element`,
      `${p}[4].matchExpressions[0].values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`,
    ]);
    assert.match(s.errorMessage() ?? '', /^\[/);
    assert.equal(s.matches(zoneA), false);
    assert.equal(s.matches(zoneB), true);
  });
});

describe('parsePreferredTerms', () => {
  it('sums the weights of matching terms, dropping weight 0 and empty terms', () => {
    const t = parsePreferredTerms([
      { weight: 5, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
      { weight: 3, preference: { matchExpressions: [{ key: 'gen', operator: 'Exists' }] } },
      { weight: 0, preference: { matchExpressions: [{ key: 'gen', operator: 'Exists' }] } },
      { weight: 7, preference: {} },
    ]);
    assert.equal(t.size, 2);
    assert.deepEqual([zoneA, zoneB, bare].map((n) => t.score(n)), [8, 3, 0]);
    assert.equal(t.errorMessage(), undefined);
  });

  it('reports errors with the preference path', () => {
    const t = parsePreferredTerms([{ weight: 1, preference: { matchExpressions: [{ key: 'zone', operator: 'In' }] } }], 'p');
    assert.deepEqual(t.errors, [`p[0].preference.matchExpressions[0].values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty`]);
  });
});

describe('requiredNodeAffinity', () => {
  it('requires both the nodeSelector and the required terms', () => {
    const pod = makePod('p', {
      nodeSelector: { zone: 'a' },
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }] } } },
    });
    const r = requiredNodeAffinity(pod);
    assert.equal(r.matches(zoneA), true);
    assert.equal(r.matches(makeNode('x', { labels: { zone: 'a', gen: '1' } })), false);
    assert.equal(r.matches(zoneB), false);
    assert.equal(r.matches(undefined), false);
    assert.equal(requiredNodeAffinity(makePod('q')).matches(bare), true);
    assert.equal(requiredNodeAffinity(makePod('q', { nodeSelector: { zone: 'a' } })).matches(bare), false);
  });
});
