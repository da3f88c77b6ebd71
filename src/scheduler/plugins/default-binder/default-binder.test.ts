import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newFakeClient } from '../../../client/testing/fake-client.js';
import { PODS } from '../../../client/rest/resources.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { Handle } from '../../framework/interfaces.js';
import { Code } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { makePod } from '../../testing/fakes.js';
import { DefaultBinder, NAME } from './default-binder.js';

describe('DefaultBinder', () => {
  it('posts a Binding to pods/NAME/binding', async () => {
    const client = newFakeClient();
    const [pod] = client.seed<Pod>(PODS, [makePod('web')]);
    const binder = new DefaultBinder({ client } as unknown as Handle);
    assert.equal(NAME, 'DefaultBinder');
    assert.equal(await binder.bind(new CycleState(), pod!, 'node-1'), undefined);
    const [action] = client.actionsOf('create', 'pods/binding');
    assert.deepEqual(action?.body, { apiVersion: 'v1', kind: 'Binding', metadata: { namespace: 'default', name: 'web', uid: pod!.metadata.uid }, target: { kind: 'Node', name: 'node-1' } });
    const bound = await client.resource<Pod>(PODS).get('web', { namespace: 'default' });
    assert.equal(bound.spec?.nodeName, 'node-1');
  });

  it('returns an Error status when the API server refuses', async () => {
    const client = newFakeClient();
    const [pod] = client.seed<Pod>(PODS, [makePod('web', { nodeName: 'other' })]);
    const status = await new DefaultBinder({ client } as unknown as Handle).bind(new CycleState(), pod!, 'node-1');
    assert.equal(status?.code, Code.Error);
    assert.match(status!.message(), /already assigned to node "other"/);
  });
});
