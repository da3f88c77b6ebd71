import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, invalid as invalidField, required } from './field-errors.js';
import {
  StatusError,
  alreadyExists,
  conflict,
  internalError,
  invalid,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  isResourceExpired,
  expired,
  notFound,
  resourceNotFound,
} from './status.js';

const pods = { group: '', resource: 'pods' };
const deployments = { group: 'apps', resource: 'deployments' };

describe('StatusError', () => {
  it('builds upstream NotFound and AlreadyExists messages with the qualified resource', () => {
    assert.equal(notFound(pods, 'web').message, 'pods "web" not found');
    assert.equal(notFound(deployments, 'web').message, 'deployments.apps "web" not found');
    assert.deepEqual(notFound(deployments, 'web').status.details, { name: 'web', group: 'apps', kind: 'deployments' });
    assert.equal(alreadyExists(pods, 'web').status.code, 409);
    assert.equal(alreadyExists(pods, 'web').message, 'pods "web" already exists');
  });

  it('builds the Conflict message kubectl users know', () => {
    assert.equal(
      conflict(pods, 'web').message,
      'Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('builds Invalid with causes and field paths', () => {
    const path = FieldPath.root('spec').child('containers').index(0).child('image');
    const one = invalid({ group: '', kind: 'Pod' }, 'web', [required(path)]);
    assert.equal(one.message, 'Pod "web" is invalid: spec.containers[0].image: Required value');
    assert.equal(one.status.code, 422);
    assert.deepEqual(one.status.details?.causes, [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' },
    ]);
    const two = invalid({ group: 'apps', kind: 'Deployment' }, 'web', [
      invalidField('spec.replicas', -1, 'must be greater than or equal to 0'),
      invalidField('metadata.name', 'Web', 'a lowercase RFC 1123 subdomain'),
    ]);
    assert.equal(
      two.message,
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain]',
    );
  });

  it('is a wire Status with the code as HTTP status', () => {
    const e = resourceNotFound();
    assert.deepEqual(e.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
  });

  it('never puts the cause of an internal error on the wire', () => {
    const e = internalError(new Error('secret detail at /some/path'));
    assert.doesNotMatch(JSON.stringify(e.status), /secret detail/);
    assert.equal(e.status.code, 500);
  });

  it('predicates check the reason first, then the code', () => {
    assert.ok(isNotFound(notFound(pods, 'x')));
    assert.ok(!isNotFound(conflict(pods, 'x')));
    assert.ok(isConflict(conflict(pods, 'x')));
    assert.ok(!isConflict(alreadyExists(pods, 'x')), 'AlreadyExists is 409 too, but another reason');
    assert.ok(isAlreadyExists(alreadyExists(pods, 'x')));
    assert.ok(isInvalid(new StatusError({ code: 422 })));
    assert.ok(isResourceExpired(expired('too old resource version: 1 (5)')));
    assert.ok(!isNotFound(new Error('plain')));
  });

  it('rebuilds from a response body on the client side', () => {
    const wire = JSON.parse(JSON.stringify(notFound(pods, 'x').status)) as unknown;
    const e = StatusError.fromResponse(404, wire);
    assert.ok(isNotFound(e));
    assert.equal(e.message, 'pods "x" not found');
    const bare = StatusError.fromResponse(409, 'not a status');
    assert.equal(bare.reason, 'Conflict');
  });
});
