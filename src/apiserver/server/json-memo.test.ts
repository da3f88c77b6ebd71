import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJson, objectJson, watchEventJson } from './json-memo.js';

describe('json-memo', () => {
  it('encodes exactly as JSON.stringify does, lists included', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', labels: { x: 'y' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const values: unknown[] = [
      pod,
      { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [pod, pod] },
      { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] },
      { kind: 'List', skipped: undefined, fn: () => 1, items: [pod, 3, 'text', null, undefined, [1, 2]] },
      [1, 2, 3],
      'text',
      null,
      { items: 'not a list' },
    ];
    for (const v of values) assert.equal(encodeJson(v), JSON.stringify(v));
  });

  it('stringifies an object once and reuses its text', () => {
    const object = { metadata: { name: 'a' } };
    const first = objectJson(object);
    // A change after encoding is not seen: cached objects are never changed.
    object.metadata.name = 'b';
    assert.equal(objectJson(object), first);
    assert.equal(encodeJson({ items: [object] }), `{"items":[${first}]}`);
  });

  it('writes watch events as JSON lines', () => {
    const object = { kind: 'Pod', metadata: { name: 'w' } };
    assert.equal(watchEventJson('ADDED', object), `${JSON.stringify({ type: 'ADDED', object })}\n`);
    const status = { kind: 'Status', code: 410 };
    assert.equal(watchEventJson('ERROR', status), `${JSON.stringify({ type: 'ERROR', object: status })}\n`);
  });
});
