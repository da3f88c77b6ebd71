import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { NAMESPACES, SERVICE_ACCOUNTS } from '../../client/rest/resources.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { serviceAccountController } from './controller.js';

describe('serviceaccount controller', () => {
  let t: TestContext;
  afterEach(() => t.stop());

  const exists = async (namespace: string, name = 'default'): Promise<boolean> => {
    try {
      await t.client.resource(SERVICE_ACCOUNTS).get(name, { namespace });
      return true;
    } catch {
      return false;
    }
  };
  const start = async (): Promise<void> => {
    await serviceAccountController.start(t.ctx);
    t.start();
  };
  const ns = (name: string, phase = 'Active') => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase } });

  it('creates `default` in every active namespace, new ones too, and recreates it when deleted', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('default'), ns('kube-system')]);
    await start();
    await waitFor(async () => (await exists('default')) && (await exists('kube-system')));
    await t.client.resource(NAMESPACES).create(ns('team'));
    await waitFor(() => exists('team'));
    await t.client.resource(SERVICE_ACCOUNTS).delete('default', { namespace: 'team' });
    await waitFor(() => exists('team'));
    assert.equal(t.client.actionsOf('create', 'serviceaccounts').length, 4);
  });

  it('leaves a Terminating namespace alone and keeps an existing account', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('going'), ns('kept')]);
    await t.client.resource(NAMESPACES).delete('going');
    t.client.seed(SERVICE_ACCOUNTS, [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'kept' } }]);
    await serviceAccountController.start(t.ctx);
    t.start();
    await t.client.resource(NAMESPACES).create(ns('barrier'));
    await waitFor(() => exists('barrier'));
    assert.equal(await exists('going'), false);
    assert.deepEqual(t.client.actionsOf('create', 'serviceaccounts').map((a) => a.namespace), ['barrier']);
  });

  it('takes AlreadyExists as done', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('a')]);
    t.client.injectError('create', 'serviceaccounts', new StatusError({ code: 409, reason: 'AlreadyExists', message: 'exists' }));
    await start();
    await waitFor(() => t.client.actionsOf('create', 'serviceaccounts').length === 1);
    await t.client.resource(NAMESPACES).create(ns('barrier'));
    await waitFor(() => exists('barrier'));
    assert.deepEqual(t.client.actionsOf('create', 'serviceaccounts').map((a) => a.namespace), ['a', 'barrier']);
  });

  it('retries other errors', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('a')]);
    t.client.injectError('create', 'serviceaccounts', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await start();
    await waitFor(() => exists('a'));
    assert.equal(t.client.actionsOf('create', 'serviceaccounts').length, 2);
  });
});
