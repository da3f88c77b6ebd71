import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePodTopologySpreadArgs, SYSTEM_DEFAULT_CONSTRAINTS } from './args.js';

const zone = { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' };

describe('PodTopologySpreadArgs', () => {
  it('defaults to System defaulting, whose constraints are hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway', () => {
    assert.deepEqual(parsePodTopologySpreadArgs(undefined), { defaultConstraints: [], defaultingType: 'System' });
    assert.deepEqual(parsePodTopologySpreadArgs({ kind: 'PodTopologySpreadArgs' }), { defaultConstraints: [], defaultingType: 'System' });
    assert.deepEqual(SYSTEM_DEFAULT_CONSTRAINTS, [
      { topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
      { topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
    ]);
  });

  it('accepts List defaulting with constraints, or with none', () => {
    assert.deepEqual(parsePodTopologySpreadArgs({ defaultingType: 'List', defaultConstraints: [zone] }), { defaultConstraints: [zone], defaultingType: 'List' });
    assert.deepEqual(parsePodTopologySpreadArgs({ defaultingType: 'List' }), { defaultConstraints: [], defaultingType: 'List' });
  });

  const cases: Array<[string, unknown, string]> = [
    ['an unknown defaultingType', { defaultingType: 'Magic' }, 'defaultingType: Unsupported value: "Magic": supported values: "System", "List"'],
    ['System with constraints', { defaultConstraints: [zone] }, 'defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
    ['maxSkew 0', { defaultingType: 'List', defaultConstraints: [{ ...zone, maxSkew: 0 }] }, 'defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)'],
    ['an empty topologyKey', { defaultingType: 'List', defaultConstraints: [{ ...zone, topologyKey: '' }] }, 'defaultConstraints[0].topologyKey: Required value: can not be empty'],
    ['an invalid topologyKey', { defaultingType: 'List', defaultConstraints: [{ ...zone, topologyKey: 'a b' }] }, 'defaultConstraints[0].topologyKey: Invalid value: "a b": name part must consist of'],
    ['an empty whenUnsatisfiable', { defaultingType: 'List', defaultConstraints: [{ ...zone, whenUnsatisfiable: '' }] }, 'defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty'],
    [
      'an unknown whenUnsatisfiable',
      { defaultingType: 'List', defaultConstraints: [{ ...zone, whenUnsatisfiable: 'Sometimes' }] },
      'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
    ],
    [
      'a labelSelector',
      { defaultingType: 'List', defaultConstraints: [{ ...zone, labelSelector: { matchLabels: { a: 'b' } } }] },
      'defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod',
    ],
    ['a repeated constraint', { defaultingType: 'List', defaultConstraints: [zone, { ...zone, maxSkew: 2 }] }, 'defaultConstraints[1]: Duplicate value: "{topology.kubernetes.io/zone, DoNotSchedule}"'],
  ];
  for (const [name, args, message] of cases) {
    it(`rejects ${name}`, () => {
      assert.throws(() => parsePodTopologySpreadArgs(args), (e: unknown) => e instanceof Error && e.message.startsWith(message));
    });
  }

  it('aggregates several errors as upstream', () => {
    assert.throws(() => parsePodTopologySpreadArgs({ defaultingType: 'List', defaultConstraints: [{ ...zone, maxSkew: -1, whenUnsatisfiable: '' }] }), {
      message: '[defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf), defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty]',
    });
  });

  it('rejects args that do not decode', () => {
    assert.throws(() => parsePodTopologySpreadArgs('x'), /want args to be of type PodTopologySpreadArgs, got string/);
    assert.throws(() => parsePodTopologySpreadArgs([]), /got array/);
    assert.throws(() => parsePodTopologySpreadArgs({ kind: 'Other' }), /want args to be of type PodTopologySpreadArgs, got Other/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultConstraint: [] }), /strict decoding error: unknown field "defaultConstraint"/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultConstraints: {} }), /defaultConstraints: must be a list/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultConstraints: [1] }), /defaultConstraints\[0\]: must be an object/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultConstraints: [{ ...zone, skew: 1 }] }), /unknown field "defaultConstraints\[0\].skew"/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultConstraints: [{ ...zone, maxSkew: '1' }] }), /maxSkew: must be an integer/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultConstraints: [{ ...zone, topologyKey: 1 }] }), /topologyKey: must be a string/);
    assert.throws(() => parsePodTopologySpreadArgs({ defaultingType: 1 }), /defaultingType: must be a string/);
  });
});
