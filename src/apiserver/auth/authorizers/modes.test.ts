import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alwaysAllow } from './always.js';
import { forbiddenError } from './forbidden.js';
import type { Attributes } from './interface.js';
import { newAuthorizer, parseAuthorizationModes } from './modes.js';
import { newUnionAuthorizer } from './union.js';

const attrs = (over: Partial<Attributes> = {}): Attributes => ({
  user: { name: 'alice', groups: ['system:authenticated'] }, verb: 'list', isResourceRequest: true, path: '/api/v1/namespaces/default/pods',
  namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: '', ...over,
});

describe('parseAuthorizationModes', () => {
  it('accepts upstream names in order', () => {
    assert.deepEqual(parseAuthorizationModes('Node,RBAC,Webhook'), ['Node', 'RBAC', 'Webhook']);
  });
  it('rejects unknown, repeated and empty modes', () => {
    assert.throws(() => parseAuthorizationModes('RBAC,Magic'), /authorization-mode "Magic" is not a valid mode/);
    assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), /more than once/);
    assert.throws(() => parseAuthorizationModes(''), /at least one/);
  });
});

describe('newAuthorizer', () => {
  it('AlwaysAllow allows everyone', async () => {
    assert.equal((await newAuthorizer(['AlwaysAllow']).authorize(attrs())).decision, 'Allow');
  });
  it('AlwaysDeny refuses all but system:masters', async () => {
    const a = newAuthorizer(['AlwaysDeny']);
    assert.deepEqual(await a.authorize(attrs()), { decision: 'NoOpinion', reason: 'Everything is forbidden.' });
    assert.equal((await a.authorize(attrs({ user: { name: 'root', groups: ['system:masters'] } }))).decision, 'Allow');
  });
  it('refuses modes it has no authorizer for', () => {
    assert.throws(() => newAuthorizer(['Node']), /authorization-mode Node is not supported by this server yet/);
    assert.throws(() => newAuthorizer(['RBAC']), /needs the RBAC authorizer/);
  });
  it('takes the first Allow or Deny, and joins the reasons of no opinion', async () => {
    const says = (decision: 'Allow' | 'Deny' | 'NoOpinion', reason: string) => ({ authorize: () => ({ decision, reason }), rulesFor: alwaysAllow.rulesFor });
    assert.equal((await newUnionAuthorizer([says('NoOpinion', 'a'), says('Deny', 'no'), says('Allow', '')]).authorize(attrs())).decision, 'Deny');
    assert.deepEqual(await newUnionAuthorizer([says('NoOpinion', 'a'), says('NoOpinion', 'b')]).authorize(attrs()), { decision: 'NoOpinion', reason: 'a\nb' });
  });
  it('answers without a promise while the members do, and the same through a member that answers with one', async () => {
    const says = (decision: 'Allow' | 'NoOpinion', reason: string, evaluationError?: string) => ({
      authorize: () => ({ decision, reason, ...(evaluationError !== undefined ? { evaluationError } : {}) }),
      rulesFor: alwaysAllow.rulesFor,
    });
    const later = (decision: 'Allow' | 'NoOpinion', reason: string, evaluationError?: string) => ({
      authorize: async () => ({ decision, reason, ...(evaluationError !== undefined ? { evaluationError } : {}) }),
      rulesFor: alwaysAllow.rulesFor,
    });
    const sync = newUnionAuthorizer([says('NoOpinion', 'a'), says('Allow', 'yes')]).authorize(attrs());
    assert.ok(!(sync instanceof Promise));
    assert.deepEqual(sync, { decision: 'Allow', reason: 'yes' });
    // A promise from the first member that gives one; reasons and errors gathered before and after it, in order.
    const mixed = newUnionAuthorizer([says('NoOpinion', 'a', 'e1'), later('NoOpinion', 'b'), says('NoOpinion', 'c', 'e2'), later('NoOpinion', '')]).authorize(attrs());
    assert.ok(mixed instanceof Promise);
    assert.deepEqual(await mixed, { decision: 'NoOpinion', reason: 'a\nb\nc', evaluationError: '[e1, e2]' });
    assert.deepEqual(await newUnionAuthorizer([says('NoOpinion', 'a'), later('NoOpinion', 'b'), later('Allow', 'ok')]).authorize(attrs()), { decision: 'Allow', reason: 'ok' });
    assert.deepEqual(await newUnionAuthorizer([later('Allow', 'first'), says('NoOpinion', 'x')]).authorize(attrs()), { decision: 'Allow', reason: 'first' });
  });
});

describe('forbiddenError', () => {
  it('words a namespaced list as upstream', () => {
    const e = forbiddenError(attrs(), '');
    assert.equal(e.status.message, 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    assert.deepEqual(e.status.details, { kind: 'pods' });
    assert.equal(e.status.code, 403);
  });
  it('words a named cluster-scoped get, and a group', () => {
    const e = forbiddenError(attrs({ verb: 'get', resource: 'nodes', name: 'n1', namespace: '' }), '');
    assert.equal(e.status.message, 'nodes "n1" is forbidden: User "alice" cannot get resource "nodes" in API group "" at the cluster scope');
    const d = forbiddenError(attrs({ apiGroup: 'apps', resource: 'deployments', verb: 'create' }), 'RBAC: x');
    assert.equal(d.status.message, 'deployments.apps is forbidden: User "alice" cannot create resource "deployments" in API group "apps" in the namespace "default": RBAC: x');
    assert.deepEqual(d.status.details, { group: 'apps', kind: 'deployments' });
  });
  it('words subresources and non-resource paths', () => {
    const e = forbiddenError(attrs({ verb: 'create', name: 'web', subresource: 'eviction' }), '');
    assert.equal(e.status.message, 'pods "web" is forbidden: User "alice" cannot create resource "pods/eviction" in API group "" in the namespace "default"');
    const n = forbiddenError(attrs({ isResourceRequest: false, verb: 'get', path: '/api', user: { name: 'system:anonymous', groups: [] } }), '');
    assert.equal(n.status.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    assert.deepEqual(n.status.details, {});
  });
});
