import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import { asKubeObject } from './decode-object.js';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };

describe('asKubeObject', () => {
  it('gives the object the URL\'s type and Go\'s JSON shape of its kind', () => {
    const object = asKubeObject(
      { metadata: { name: 'web', labels: {} }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i', env: [] }] } } } },
      DEPLOYMENT,
    );
    assert.deepEqual(object, {
      metadata: { name: 'web', creationTimestamp: null },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'i', resources: {} }] }, metadata: { creationTimestamp: null } }, selector: null, strategy: {} },
      status: {},
      apiVersion: 'apps/v1',
      kind: 'Deployment',
    });
  });

  it('leaves an object the protobuf decoder shaped, and a kind without a message, as they are', () => {
    const shaped = asKubeObject({ metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ env: [] }] } } } }, DEPLOYMENT, { goShaped: true });
    assert.deepEqual(shaped.spec, { template: { spec: { containers: [{ env: [] }] } } });
    const widget = asKubeObject({ metadata: { name: 'w', labels: {} }, spec: { list: [] } }, { group: 'example.com', version: 'v1', kind: 'Widget' });
    assert.deepEqual(widget, { metadata: { name: 'w', labels: {} }, spec: { list: [] }, apiVersion: 'example.com/v1', kind: 'Widget' });
  });

  it('shapes a body that already names its type and has metadata into the same new object, key for key, as one that does not', () => {
    const spec = { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } };
    const typed = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { a: 'b' } }, spec };
    const before = JSON.stringify(typed);
    const object = asKubeObject(typed, DEPLOYMENT);
    assert.notEqual(object, typed);
    assert.equal(JSON.stringify(typed), before, 'the input is left as it was');
    const untyped = asKubeObject({ metadata: { name: 'web', labels: { a: 'b' } }, spec }, DEPLOYMENT);
    assert.equal(JSON.stringify(object), JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', ...untyped }));
    // The type in the body's own place, wherever it is.
    const late = asKubeObject({ metadata: { name: 'web' }, kind: 'Deployment', apiVersion: 'apps/v1' }, DEPLOYMENT);
    assert.deepEqual(Object.keys(late), ['metadata', 'kind', 'apiVersion', 'spec', 'status']);
  });

  it('copies an object it does not shape (protobuf-decoded, or of a kind without a message)', () => {
    const shaped = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } };
    const object = asKubeObject(shaped, DEPLOYMENT, { goShaped: true });
    assert.notEqual(object, shaped);
    assert.deepEqual(object, shaped);
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} };
    const copy = asKubeObject(widget, { group: 'example.com', version: 'v1', kind: 'Widget' });
    assert.notEqual(copy, widget);
    assert.deepEqual(Object.keys(copy), ['apiVersion', 'kind', 'metadata', 'spec']);
  });

  it('checks that labels and annotations are maps of strings, own values only', () => {
    const inherited = Object.create({ x: 1 }) as Record<string, unknown>;
    inherited.a = 'b';
    assert.doesNotThrow(() => asKubeObject({ metadata: { labels: inherited } }, DEPLOYMENT));
    assert.throws(
      () => asKubeObject({ metadata: { annotations: { a: 'b', c: null } } }, DEPLOYMENT),
      (e: unknown) => e instanceof StatusError && e.status.message === 'Deployment in version "v1" cannot be handled as a Deployment: metadata.annotations must be a map of strings',
    );
    assert.deepEqual(asKubeObject({ metadata: { labels: { a: 'b' }, annotations: {} } }, DEPLOYMENT).metadata.labels, { a: 'b' });
  });

  it('checks metadata before shaping it: a bad one is a 400', () => {
    assert.throws(
      () => asKubeObject({ metadata: { name: 1 } }, DEPLOYMENT),
      (e: unknown) => e instanceof StatusError && e.status.code === 400 && e.status.message === 'Deployment in version "v1" cannot be handled as a Deployment: metadata.name must be a string',
    );
    assert.throws(() => asKubeObject({ metadata: [] }, DEPLOYMENT), (e: unknown) => e instanceof StatusError && e.status.code === 400);
  });
});
