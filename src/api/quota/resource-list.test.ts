import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addLists, exceededResources, formatAmount, listsEqual, maskList, negativeResources, parseAmount, prettyPrint, removeZeros, subtractNonNegative } from './resource-list.js';

describe('resource list arithmetic', () => {
  it('parses quantities exactly and prints them as upstream Quantity.String()', () => {
    const round = (t: string): string => formatAmount(parseAmount(t)!);
    assert.equal(round('1000m'), '1');
    assert.equal(round('0.5'), '500m');
    assert.equal(round('1.5Gi'), '1536Mi');
    assert.equal(round('2048Ki'), '2Mi');
    assert.equal(round('1500'), '1500');
    assert.equal(round('0'), '0');
    assert.equal(round('1e3'), '1k');
    assert.equal(parseAmount('abc'), undefined);
    assert.equal(parseAmount('1.5.5'), undefined);
  });

  it('adds keeping the left format (the right one when the left is zero), subtracts not below zero', () => {
    assert.deepEqual(addLists({ cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '512Mi', pods: '1' }), { cpu: '1500m', memory: '1536Mi', pods: '1' });
    assert.deepEqual(addLists({ memory: '0' }, { memory: '1Gi' }), { memory: '1Gi' });
    assert.deepEqual(subtractNonNegative({ cpu: '1', pods: '1' }, { cpu: '2', pods: '0' }), { cpu: '0', pods: '1' });
  });

  it('masks, compares, removes zeros, finds negatives, prints sorted', () => {
    assert.deepEqual(maskList({ a: '1', b: '2' }, ['b', 'c']), { b: '2' });
    assert.deepEqual(exceededResources({ a: '2', b: '1', c: '9' }, { a: '1', b: '1' }), ['a']);
    assert.deepEqual(removeZeros({ a: '0', b: '0m', c: '1' }), { c: '1' });
    assert.deepEqual(negativeResources({ b: '-1', a: '-1m', c: '1' }), ['a', 'b']);
    assert.equal(prettyPrint({ pods: '1', 'limits.cpu': '1000m' }), 'limits.cpu=1,pods=1');
    assert.ok(listsEqual({ cpu: '1' }, { cpu: '1000m' }) && !listsEqual({ cpu: '1' }, { cpu: '1', pods: '0' }));
  });
});
