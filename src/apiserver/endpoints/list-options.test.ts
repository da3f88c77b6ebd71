import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import { listOptionsErrors, validateListOptions } from './list-options.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);
const messages = (s: string, watch: boolean): string[] => {
  try {
    validateListOptions(q(s), watch);
    return [];
  } catch (e: unknown) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 422);
    assert.equal(e.status.reason, 'Invalid');
    assert.deepEqual([e.status.details?.group, e.status.details?.kind], ['meta.k8s.io', 'ListOptions']);
    return [e.status.message ?? ''];
  }
};

describe('validateListOptions', () => {
  it('answers a list’s resourceVersionMatch rules with upstream’s 422 and messages', () => {
    assert.deepEqual(messages('resourceVersionMatch=NotOlderThan', false), [
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ]);
    assert.deepEqual(messages('resourceVersionMatch=Exact&resourceVersion=0', false), [
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ]);
    assert.deepEqual(messages('resourceVersionMatch=Bogus&resourceVersion=5', false), [
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
    ]);
    assert.deepEqual(messages('sendInitialEvents=true', false), [
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    ]);
    assert.equal(listOptionsErrors(q('resourceVersionMatch=Exact&continue=abc'), false).length, 2);
    assert.deepEqual(messages('resourceVersion=5&resourceVersionMatch=Exact&limit=1', false), []);
  });

  it('answers a watch’s sendInitialEvents rules', () => {
    assert.deepEqual(messages('resourceVersionMatch=NotOlderThan&resourceVersion=1', true), [
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ]);
    assert.deepEqual(messages('sendInitialEvents=true&allowWatchBookmarks=true', true), [
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ]);
    assert.deepEqual(messages('sendInitialEvents=true&resourceVersionMatch=NotOlderThan', true), [
      'ListOptions.meta.k8s.io "" is invalid: allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
    ]);
    assert.deepEqual(messages('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', true), []);
    assert.deepEqual(messages('sendInitialEvents=false&resourceVersionMatch=NotOlderThan', true), []);
  });
});
