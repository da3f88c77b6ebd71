import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError, formatFieldErrors } from '../field-errors.js';
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, validateRBACName } from './names.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMeta } from './object-meta.js';

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const namespaced = { namespaced: true, nameValidator: nameIsDNSSubdomain };
const clusterScoped = { namespaced: false, nameValidator: nameIsDNSSubdomain };
const texts = (meta: ObjectMeta, options = namespaced): string[] => validateObjectMeta(meta, options).map(formatFieldError);

describe('validateObjectMeta', () => {
  it('accepts a typical object', () => {
    assert.deepEqual(
      texts({
        name: 'web',
        namespace: 'default',
        generation: 1,
        labels: { app: 'web', 'app.kubernetes.io/part-of': 'shop' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u', controller: true }],
        finalizers: ['kubernetes.io/pvc-protection', 'foregroundDeletion'],
        managedFields: [{ manager: 'kubectl', operation: 'Update' }],
      }),
      [],
    );
  });
  it('requires a name or generateName', () => {
    assert.deepEqual(texts({ namespace: 'default' }), ['metadata.name: Required value: name or generateName is required']);
    assert.deepEqual(texts({ namespace: 'default', generateName: 'web-' }), ['metadata.name: Required value: name or generateName is required']);
  });
  it('checks the name as the kind says', () => {
    assert.deepEqual(texts({ name: 'Web', namespace: 'default' }), [`metadata.name: Invalid value: "Web": ${SUBDOMAIN}`]);
    assert.deepEqual(texts({ name: 'a.b', namespace: 'default' }, { namespaced: true, nameValidator: nameIsDNSLabel }), [
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
    assert.deepEqual(texts({ name: '1web', namespace: 'default' }, { namespaced: true, nameValidator: nameIsDNS1035Label }), [
      `metadata.name: Invalid value: "1web": ${DNS1035}`,
    ]);
    assert.deepEqual(texts({ name: 'a/b', namespace: 'default' }, { namespaced: true, nameValidator: validateRBACName }), [
      "metadata.name: Invalid value: \"a/b\": may not contain '/'",
    ]);
    assert.deepEqual(texts({ name: 'x'.repeat(254), namespace: 'default' }), [
      `metadata.name: Invalid value: "${'x'.repeat(254)}": must be no more than 253 characters`,
    ]);
  });
  it('checks generateName as a prefix, and the generated name too', () => {
    assert.deepEqual(texts({ generateName: 'web-', name: 'web-x7k2p', namespace: 'default' }), []);
    assert.deepEqual(texts({ generateName: 'Web-', name: 'Web-x7k2p', namespace: 'default' }), [
      `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN}`,
      `metadata.name: Invalid value: "Web-x7k2p": ${SUBDOMAIN}`,
    ]);
  });
  it('requires a namespace on namespaced kinds and forbids it on others', () => {
    assert.deepEqual(texts({ name: 'web' }), ['metadata.namespace: Required value']);
    assert.deepEqual(texts({ name: 'web', namespace: 'Default' }), [`metadata.namespace: Invalid value: "Default": ${LABEL}`]);
    assert.deepEqual(texts({ name: 'web', namespace: 'a.b' }), ['metadata.namespace: Invalid value: "a.b": must not contain dots']);
    assert.deepEqual(texts({ name: 'node-1' }, clusterScoped), []);
    assert.deepEqual(texts({ name: 'node-1', namespace: 'default' }, clusterScoped), ['metadata.namespace: Forbidden: not allowed on this type']);
  });
  it('rejects a negative generation', () => {
    assert.deepEqual(texts({ name: 'web', namespace: 'default', generation: -1 }), [
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
  it('checks labels, annotations, owner references, finalizers and managed fields', () => {
    const errs = texts({
      name: 'web',
      namespace: 'default',
      labels: { app: 'x'.repeat(64) },
      annotations: { big: 'x'.repeat(262144) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }],
      finalizers: ['orphan', 'foregroundDeletion', 'custom'],
      managedFields: [{ manager: 'm', operation: 'Patch' }],
    });
    assert.deepEqual(errs, [
      `metadata.labels: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
      'metadata.annotations: Too long: may not be more than 262144 bytes',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion", "custom"}: finalizer orphan and foregroundDeletion cannot be both set',
      'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.finalizers[2]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
  it('skips the standard finalizer rule for custom resources', () => {
    assert.deepEqual(texts({ name: 'x', namespace: 'default', finalizers: ['custom'] }, { ...namespaced, standardFinalizers: false } as typeof namespaced), []);
  });
  it('uses the given path', () => {
    const path = FieldPath.root('spec').child('template', 'metadata');
    assert.deepEqual(validateObjectMeta({ name: 'a', namespace: 'default', labels: { k: '-' } }, { ...namespaced, path }).map(formatFieldError), [
      `spec.template.metadata.labels: Invalid value: "-": ${LABEL_VALUE}`,
    ]);
  });
  it('reads as kubectl shows it for several errors', () => {
    assert.equal(
      formatFieldErrors(validateObjectMeta({ name: 'Web', labels: { app: '-' } }, namespaced)),
      `[metadata.name: Invalid value: "Web": ${SUBDOMAIN}, metadata.namespace: Required value, metadata.labels: Invalid value: "-": ${LABEL_VALUE}]`,
    );
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'web',
    namespace: 'default',
    uid: '6a2c…',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { app: 'web' },
    finalizers: ['example.com/a'],
  };
  const update = (changes: Partial<ObjectMeta>, from: ObjectMeta = old): string[] =>
    validateObjectMetaUpdate({ ...from, ...changes }, from).map(formatFieldError);

  it('accepts an update that changes what may change', () => {
    assert.deepEqual(update({ labels: { app: 'web', tier: 'front' }, annotations: { a: 'b' }, generation: 4, finalizers: ['example.com/b'] }), []);
  });
  it('requires a resource version', () => {
    assert.deepEqual(update({ resourceVersion: '' }), ['metadata.resourceVersion: Invalid value: "": must be specified for an update']);
    assert.deepEqual(update({ resourceVersion: undefined }), ['metadata.resourceVersion: Invalid value: "": must be specified for an update']);
  });
  it('forbids a lower generation', () => {
    assert.deepEqual(update({ generation: 2 }), ['metadata.generation: Invalid value: 2: must not be decremented']);
  });
  it('keeps name, namespace and uid immutable', () => {
    assert.deepEqual(update({ name: 'web2', namespace: 'other', uid: 'x' }), [
      'metadata.name: Invalid value: "web2": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "x": field is immutable',
    ]);
  });
  it('keeps timestamps and grace period immutable, printing times as Go does', () => {
    assert.deepEqual(update({ creationTimestamp: '2024-05-01T12:00:00+02:00' }), []);
    assert.deepEqual(update({ creationTimestamp: '2024-05-02T10:00:00Z' }), [
      'metadata.creationTimestamp: Invalid value: 2024-05-02 10:00:00 +0000 UTC: field is immutable',
    ]);
    assert.deepEqual(update({ deletionTimestamp: '2024-05-03T00:00:00Z', deletionGracePeriodSeconds: 30 }), [
      'metadata.deletionTimestamp: Invalid value: 2024-05-03 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
    const deleting = { ...old, deletionTimestamp: '2024-05-03T00:00:00Z', deletionGracePeriodSeconds: 30 };
    assert.deepEqual(update({ deletionTimestamp: null, deletionGracePeriodSeconds: null }, deleting), [
      'metadata.deletionTimestamp: Invalid value: null: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: null: field is immutable',
    ]);
  });
  it('forbids new finalizers once deletion has begun', () => {
    const deleting = { ...old, deletionTimestamp: '2024-05-03T00:00:00Z' };
    assert.deepEqual(update({ finalizers: [] }, deleting), []);
    assert.deepEqual(update({ finalizers: ['example.com/a', 'example.com/b'] }, deleting), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}',
    ]);
  });
  it('checks the new labels, annotations, owner references, managed fields and finalizer names', () => {
    assert.deepEqual(
      update({
        labels: { 'bad key': 'v' },
        annotations: { '': 'v' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', uid: 'u' }],
        managedFields: [{ manager: 'm', operation: 'Apply', fieldsType: 'x' }],
        finalizers: ['example.com/a', 'mine'],
      }).map((t) => t.replace(/ \(e\.g\..*$/, '')),
      [
        "metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        'metadata.annotations: Invalid value: "": name part must be non-empty',
        "metadata.annotations: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
        'metadata.managedFields[0].fieldsType: Invalid value: "x": must be `FieldsV1`',
        'metadata.finalizers[1]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
      ],
    );
  });
  it('does not recheck the name on update', () => {
    const legacy = { ...old, name: 'Legacy_Name' };
    assert.deepEqual(validateObjectMetaUpdate({ ...legacy }, legacy), []);
  });
  it('takes a path and options', () => {
    const path = FieldPath.root('metadata');
    assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: ['mine'] }, old, path, { standardFinalizers: false }), []);
  });
});
