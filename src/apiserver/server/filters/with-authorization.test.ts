import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthorizationResult } from '../../auth/authorizers/interface.js';
import { StatusError } from '../../../machinery/status.js';
import type { RequestContext } from '../context.js';
import { parseRequestInfo } from '../request-info.js';
import { withAuthorization } from './with-authorization.js';

const ctx = (path: string, user = { name: 'alice', groups: ['system:authenticated'] }): RequestContext =>
  ({ info: parseRequestInfo('GET', path, new URLSearchParams()), query: new URLSearchParams(), user }) as unknown as RequestContext;
const answering = (result: AuthorizationResult) => ({ authorize: () => result });

describe('withAuthorization', () => {
  it('passes an allowed request on', async () => {
    let ran = false;
    await withAuthorization(answering({ decision: 'Allow', reason: '' }))(async () => void (ran = true))(ctx('/api/v1/pods'));
    assert.equal(ran, true);
  });

  it('refuses anything else with upstream 403, the reason appended', async () => {
    await assert.rejects(withAuthorization(answering({ decision: 'NoOpinion', reason: 'RBAC: role gone' }))(async () => assert.fail('ran'))(ctx('/api/v1/namespaces/default/pods/web')), (e: unknown) =>
      e instanceof StatusError && e.status.code === 403 && e.status.message === 'pods "web" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default": RBAC: role gone');
    await assert.rejects(withAuthorization(answering({ decision: 'Deny', reason: '' }))(async () => assert.fail('ran'))(ctx('/api')), (e: unknown) =>
      e instanceof StatusError && e.status.message === 'forbidden: User "alice" cannot get path "/api"');
  });

  it('answers 500 when the authorizer could not decide', async () => {
    await assert.rejects(withAuthorization(answering({ decision: 'NoOpinion', reason: '', evaluationError: 'webhook down' }))(async () => assert.fail('ran'))(ctx('/api/v1/pods')), (e: unknown) =>
      e instanceof StatusError && e.status.code === 500);
  });

  it('decides the same when the authorizer answers with a promise', async () => {
    let ran = false;
    await withAuthorization({ authorize: async () => ({ decision: 'Allow', reason: '' }) })(async () => void (ran = true))(ctx('/api/v1/pods'));
    assert.equal(ran, true);
    await assert.rejects(withAuthorization({ authorize: async () => ({ decision: 'NoOpinion', reason: '' }) })(async () => assert.fail('ran'))(ctx('/api')), (e: unknown) =>
      e instanceof StatusError && e.status.message === 'forbidden: User "alice" cannot get path "/api"');
  });

  it('turns an authorizer that throws, and a handler that throws at once, into a rejected promise', async () => {
    const failing = withAuthorization({ authorize: () => { throw new Error('broken'); } })(async () => assert.fail('ran'));
    let pending: Promise<void> | undefined;
    assert.doesNotThrow(() => void (pending = failing(ctx('/api'))));
    await assert.rejects(pending!, /broken/);
    const throwing = withAuthorization(answering({ decision: 'Allow', reason: '' }))((() => { throw new Error('at once'); }) as unknown as () => Promise<void>);
    await assert.rejects(throwing(ctx('/api')), /at once/);
  });

  it('passes everything on without an authorizer', async () => {
    let ran = false;
    await withAuthorization(undefined)(async () => void (ran = true))(ctx('/api/v1/pods'));
    assert.equal(ran, true);
  });
});
