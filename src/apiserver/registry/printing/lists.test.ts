import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sortedUnique, truncatedList } from './lists.js';
import { orNone } from './placeholders.js';
import { containerCells } from './containers.js';
import { subjectCells } from './subjects.js';
import { podRowConditions } from './row-conditions.js';
import { NOW, ago, H } from './testing/table-assertions.js';
import { age, timeSince } from './timestamps.js';

describe('printing helpers', () => {
  it('truncates lists after three values', () => {
    assert.equal(truncatedList([]), '<unset>');
    assert.equal(truncatedList(['a', 'b', 'c']), 'a,b,c');
    assert.equal(truncatedList(['a', 'b', 'c', 'd', 'e']), 'a,b,c + 2 more...');
  });

  it('sorts in byte order and removes duplicates', () => {
    assert.deepEqual(sortedUnique(['b', 'B', 'a', 'b']), ['B', 'a', 'b']);
  });

  it('prints <none> for empty values', () => {
    assert.equal(orNone(''), '<none>');
    assert.equal(orNone(undefined), '<none>');
    assert.equal(orNone('x'), 'x');
  });

  it('lays out container names and images', () => {
    assert.deepEqual(containerCells([{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox:1' }]), ['a,b', 'nginx,busybox:1']);
    assert.deepEqual(containerCells(undefined), ['', '']);
  });

  it('splits binding subjects', () => {
    assert.deepEqual(
      subjectCells([
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', namespace: 'kube-system', name: 'dns' },
        { kind: 'User', name: 'bob' },
        { kind: 'Other', name: 'x' },
      ]),
      { users: 'alice, bob', groups: 'devs', serviceAccounts: 'kube-system/dns' },
    );
  });

  it('reads timestamps', () => {
    assert.equal(timeSince(ago(3 * H), NOW), '3h');
    assert.equal(timeSince('not a time', NOW), '<unknown>');
    assert.equal(timeSince('2024-06-01T11:59:59.500000Z', NOW), '0s');
    assert.equal(age({}, NOW), '<unknown>');
  });

  it('marks finished pod rows Completed', () => {
    assert.deepEqual(podRowConditions({ status: { phase: 'Running' } }), []);
    assert.equal(podRowConditions({ status: { phase: 'Succeeded' } })[0]?.reason, 'Succeeded');
    assert.equal(podRowConditions({ status: { phase: 'Failed' } })[0]?.type, 'Completed');
  });
});
