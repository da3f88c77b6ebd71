import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJsonBytes, objectJsonBytes, rememberJsonBytes, watchEventJsonBytes } from './json-memo.js';

describe('json-memo', () => {
  it('encodes exactly the bytes of JSON.stringify, lists included', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ä-pod', labels: { x: 'y€' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const values: unknown[] = [
      pod,
      { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [pod, pod] },
      { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] },
      { items: [pod], kind: 'List' },
      { skipped: undefined, items: [pod] },
      { kind: 'List', skipped: undefined, fn: () => 1, items: [pod, 3, 'text', null, undefined, [1, 2]], after: 'x' },
      [1, 2, 3],
      'text',
      null,
      { items: 'not a list' },
    ];
    for (const v of values) assert.equal(encodeJsonBytes(v).toString('utf8'), JSON.stringify(v));
  });

  it('encodes an object once and reuses its bytes', () => {
    const object = { metadata: { name: 'a' } };
    const first = objectJsonBytes(object).toString();
    // A change after encoding is not seen: cached objects are never changed.
    object.metadata.name = 'b';
    assert.equal(objectJsonBytes(object).toString(), first);
    assert.equal(encodeJsonBytes({ items: [object] }).toString(), `{"items":[${first}]}`);
  });

  it('writes watch events as JSON lines', () => {
    const object = { kind: 'Pod', metadata: { name: 'w' } };
    assert.equal(watchEventJsonBytes('ADDED', object).toString(), `${JSON.stringify({ type: 'ADDED', object })}\n`);
    const status = { kind: 'Status', code: 410 };
    assert.equal(watchEventJsonBytes('ERROR', status).toString(), `${JSON.stringify({ type: 'ERROR', object: status })}\n`);
  });

  it('assembles one line per object and event type, shared by every watcher, and keeps the object bytes inside it', () => {
    const pod = { kind: 'Pod', metadata: { name: 'shared', labels: { é: 'ü' } } };
    const added = watchEventJsonBytes('ADDED', pod);
    assert.equal(watchEventJsonBytes('ADDED', pod), added, 'the second watcher gets the same bytes');
    assert.equal(objectJsonBytes(pod).toString('utf8'), JSON.stringify(pod));
    assert.equal(objectJsonBytes(pod).buffer, added.buffer, 'the object bytes are a part of the line');
    const modified = watchEventJsonBytes('MODIFIED', pod);
    assert.equal(modified.toString('utf8'), `${JSON.stringify({ type: 'MODIFIED', object: pod })}\n`);
    assert.equal(added.toString('utf8'), `${JSON.stringify({ type: 'ADDED', object: pod })}\n`);
  });

  it('writes events of values that are not objects as JSON.stringify would', () => {
    assert.equal(watchEventJsonBytes('ERROR', null).toString(), '{"type":"ERROR","object":null}\n');
    assert.equal(watchEventJsonBytes('ERROR', [1, 'a']).toString(), '{"type":"ERROR","object":[1,"a"]}\n');
    assert.equal(watchEventJsonBytes('ERROR', undefined).toString(), '{"type":"ERROR","object":null}\n');
  });

  it('answers an object with the bytes remembered for it (a create derives them from the stored JSON), in lists and watch events too', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', resourceVersion: '5' } };
    const bytes = Buffer.from(JSON.stringify(pod), 'utf8');
    rememberJsonBytes(pod, bytes);
    assert.equal(encodeJsonBytes(pod), bytes);
    assert.equal(objectJsonBytes(pod), bytes);
    assert.equal(watchEventJsonBytes('ADDED', pod).toString('utf8'), `{"type":"ADDED","object":${JSON.stringify(pod)}}\n`);
    assert.equal(encodeJsonBytes({ kind: 'PodList', items: [pod] }).toString('utf8'), JSON.stringify({ kind: 'PodList', items: [pod] }));
  });
});
