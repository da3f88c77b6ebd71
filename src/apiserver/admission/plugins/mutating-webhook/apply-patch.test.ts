import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../../machinery/meta.js';
import { applyJSONPatchInPlace } from './apply-patch.js';

const patch = (ops: unknown): string => Buffer.from(JSON.stringify(ops)).toString('base64');
const pod = (): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: '1' } } }) as KubeObject;

test('a webhook patch changes the object in place and says so', () => {
  const object = pod();
  assert.equal(applyJSONPatchInPlace(object, patch([{ op: 'add', path: '/metadata/labels/b', value: '2' }])), true);
  assert.deepEqual(object.metadata.labels, { a: '1', b: '2' });
  assert.equal(applyJSONPatchInPlace(object, patch([{ op: 'replace', path: '/metadata/labels/b', value: '2' }])), false);
});

test('removing a member that is not there fails, as upstream (evanphx/json-patch v4), and leaves the object alone', () => {
  const object = pod();
  assert.throws(() => applyJSONPatchInPlace(object, patch([{ op: 'remove', path: '/metadata/labels/missing' }])), /applying the webhook's JSON patch/);
  assert.deepEqual(object, pod());
});

test('a patch that is not an array of operations is refused', () => {
  assert.throws(() => applyJSONPatchInPlace(pod(), Buffer.from('{').toString('base64')), /not JSON/);
  assert.throws(() => applyJSONPatchInPlace(pod(), patch({ op: 'add' })), /not a JSON patch/);
  assert.throws(() => applyJSONPatchInPlace(pod(), patch(['add'])), /not a JSON patch/);
});
