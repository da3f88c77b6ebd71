import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { attributesFor } from '../testing/attributes.js';
import { newServiceAccount } from './service-account.js';

describe('ServiceAccount', () => {
  it('runs a pod that names no service account as default, and keeps one that names its own', async () => {
    const plain = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [] } } as unknown as KubeObject;
    await newServiceAccount().admit(attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object: plain }));
    assert.deepEqual(plain.spec, { containers: [], serviceAccountName: 'default', serviceAccount: 'default' });
    const own = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, spec: { containers: [], serviceAccountName: 'robot' } } as unknown as KubeObject;
    await newServiceAccount().admit(attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object: own }));
    assert.equal((own.spec as { serviceAccount: string }).serviceAccount, 'robot');
  });
});
