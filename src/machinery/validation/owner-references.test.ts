import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
import { validateOwnerReferences, type OwnerReference } from './owner-references.js';

const path = FieldPath.root('metadata').child('ownerReferences');
const texts = (refs: readonly OwnerReference[] | null | undefined): string[] => validateOwnerReferences(refs, path).map(formatFieldError);
const rs: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1', controller: true, blockOwnerDeletion: true };

describe('validateOwnerReferences', () => {
  it('accepts complete references, none and null', () => {
    assert.deepEqual(texts([rs, { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u2' }]), []);
    assert.deepEqual(texts([]), []);
    assert.deepEqual(texts(undefined), []);
    assert.deepEqual(texts(null), []);
  });
  it('requires every part, naming the list and not the entry', () => {
    assert.deepEqual(texts([{}]), [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
  });
  it('reads the version out of apiVersion', () => {
    assert.deepEqual(texts([{ ...rs, apiVersion: 'apps/' }]), ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty']);
    assert.deepEqual(texts([{ ...rs, apiVersion: 'a/b/c' }]), ['metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty']);
    assert.deepEqual(texts([{ ...rs, apiVersion: '/' }]), ['metadata.ownerReferences.apiVersion: Invalid value: "/": version must not be empty']);
  });
  it('bans events as owners', () => {
    assert.deepEqual(texts([{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }]), [
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    ]);
    assert.deepEqual(texts([{ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'e', uid: 'u' }]), []);
  });
  it('allows one controller', () => {
    const second: OwnerReference = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u3', controller: true };
    const third: OwnerReference = { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u4', controller: true };
    const errs = texts([rs, { ...rs, controller: false, name: 'other' }, second, third]);
    assert.equal(errs.length, 2);
    assert.match(errs[0]!, /^metadata\.ownerReferences: Invalid value: \[\]v1\.OwnerReference\{v1\.OwnerReference\{APIVersion:"apps\/v1", Kind:"ReplicaSet", Name:"web-1", UID:"u1", Controller:\(\*bool\)\(0x[0-9a-f]+\), /);
    assert.ok(errs[0]!.endsWith(': Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/web-1 and StatefulSet/db'));
    assert.ok(errs[1]!.endsWith(': Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/web-1 and Pod/p'));
  });
});
