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

  it('checks metadata before shaping it: a bad one is a 400', () => {
    assert.throws(
      () => asKubeObject({ metadata: { name: 1 } }, DEPLOYMENT),
      (e: unknown) => e instanceof StatusError && e.status.code === 400 && e.status.message === 'Deployment in version "v1" cannot be handled as a Deployment: metadata.name must be a string',
    );
    assert.throws(() => asKubeObject({ metadata: [] }, DEPLOYMENT), (e: unknown) => e instanceof StatusError && e.status.code === 400);
  });
});
