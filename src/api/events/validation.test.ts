import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFieldError } from '../../machinery/field-errors.js';
import type { InternalEvent } from './internal.js';
import { isZeroTime, validateEventCreate, validateEventUpdate } from './validation.js';

const CORE = { group: '', version: 'v1' };
const EVENTS = { group: 'events.k8s.io', version: 'v1' };
const BETA = { group: 'events.k8s.io', version: 'v1beta1' };

/** A valid new-style event (what events.k8s.io/v1 clients send). */
const newStyle = (extra: Partial<InternalEvent> = {}): InternalEvent => ({
  metadata: { name: 'e', namespace: 'default' },
  eventTime: '2024-06-01T12:00:00.000001Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-1',
  action: 'Reconcile',
  reason: 'Synced',
  involvedObject: { kind: 'Deployment', name: 'web', namespace: 'default' },
  message: 'synced',
  type: 'Normal',
  ...extra,
});

/** A valid old-style event (what core/v1 recorders send). */
const oldStyle = (extra: Partial<InternalEvent> = {}): InternalEvent => ({
  metadata: { name: 'e', namespace: 'default' },
  involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default' },
  reason: 'Pulled',
  message: 'pulled',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-06-01T12:00:00Z',
  lastTimestamp: '2024-06-01T12:00:00Z',
  count: 1,
  type: 'Normal',
  ...extra,
});

const messages = (errors: ReturnType<typeof validateEventCreate>): string[] => errors.map(formatFieldError);

describe('validateEventCreate', () => {
  it('accepts a new-style event in every version and an old-style one through core/v1', () => {
    for (const v of [CORE, EVENTS, BETA]) assert.deepEqual(messages(validateEventCreate(newStyle(), v)), []);
    assert.deepEqual(messages(validateEventCreate(oldStyle(), CORE)), []);
  });

  it('checks an old-style event’s namespace against its object’s (default allowed for cluster-scoped objects)', () => {
    assert.deepEqual(messages(validateEventCreate(oldStyle({ involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } }), CORE)), [
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
    assert.deepEqual(messages(validateEventCreate(oldStyle({ involvedObject: { kind: 'Node', name: 'n' } }), CORE)), []);
    const inKubeSystem = oldStyle({ metadata: { name: 'e', namespace: 'kube-system' }, involvedObject: { kind: 'Node', name: 'n' } });
    assert.deepEqual(messages(validateEventCreate(inKubeSystem, CORE)), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  });

  it('requires the reporting fields, action and reason of a new-style event whatever the version, with upstream’s limits', () => {
    const bare = newStyle({ reportingController: '', reportingInstance: '', action: '', reason: '' });
    assert.deepEqual(messages(validateEventCreate(bare, CORE)), [
      'reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      `reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
    const long = newStyle({ reportingInstance: 'i'.repeat(129), action: 'a'.repeat(129), reason: 'r'.repeat(129), message: 'n'.repeat(1025) });
    assert.deepEqual(messages(validateEventCreate(long, EVENTS)), [
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Invalid value: "": can have at most 128 characters',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
    // Limits count bytes, as Go's len does.
    assert.deepEqual(messages(validateEventCreate(newStyle({ message: 'é'.repeat(513) }), EVENTS)), ['message: Invalid value: "": can have at most 1024 characters']);
    assert.deepEqual(
      messages(validateEventCreate(newStyle({ involvedObject: { kind: 'Node', name: 'n' }, metadata: { name: 'e', namespace: 'apps' } }), EVENTS)),
      ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
    );
  });

  it('applies the strict rules to events.k8s.io/v1 requests only', () => {
    const legacy = oldStyle({ type: 'Fatal', series: { count: 1 } as NonNullable<InternalEvent['series']> });
    assert.deepEqual(messages(validateEventCreate(legacy, CORE)), []);
    assert.deepEqual(messages(validateEventCreate(legacy, BETA)), []);
    assert.deepEqual(messages(validateEventCreate(legacy, EVENTS)), [
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: Fatal',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
    const { type: _, ...untyped } = newStyle();
    assert.deepEqual(messages(validateEventCreate(untyped, EVENTS)), ['type: Invalid value: "": has invalid value: ']);
  });

  it('checks the namespace as a DNS subdomain', () => {
    const e = oldStyle({ metadata: { name: 'e', namespace: 'Bad_NS' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'Bad_NS' } });
    assert.deepEqual(messages(validateEventCreate(e, CORE)), [
      `namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });
});

describe('validateEventUpdate', () => {
  it('lets core/v1 change anything the legacy rules allow', () => {
    assert.deepEqual(messages(validateEventUpdate(oldStyle({ message: 'changed', count: 7 }), oldStyle(), CORE)), []);
  });

  it('keeps an events.k8s.io/v1 event’s fields immutable, but lets its series grow', () => {
    const old = newStyle({ series: { count: 2, lastObservedTime: '2024-06-01T12:01:00.000000Z' } });
    const grown = newStyle({ series: { count: 3, lastObservedTime: '2024-06-01T12:02:00.000000Z' } });
    assert.deepEqual(messages(validateEventUpdate(grown, old, EVENTS)), []);
    assert.deepEqual(messages(validateEventUpdate(newStyle({ series: { count: 1, lastObservedTime: '' } }), old, EVENTS)), [
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
    ]);
    const changed = newStyle({ message: 'other', reason: 'Other', action: 'Other', reportingInstance: 'controller-2' });
    assert.deepEqual(messages(validateEventUpdate(changed, newStyle(), EVENTS)), [
      'reason: Invalid value: "Other": field is immutable',
      'message: Invalid value: "other": field is immutable',
      'reason: Invalid value: "Other": field is immutable',
      'action: Invalid value: "Other": field is immutable',
      'reportingInstance: Invalid value: "controller-2": field is immutable',
    ]);
  });

  it('sees absent and zero values as equal, as Go does', () => {
    assert.deepEqual(messages(validateEventUpdate(newStyle({ source: {}, count: 0, reportingInstance: 'controller-1', eventTime: '2024-06-01T12:00:00.000001Z' }), newStyle(), EVENTS)), []);
  });
});

describe('isZeroTime', () => {
  it('knows Go’s zero time in its forms', () => {
    for (const zero of [undefined, null, '', '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z']) assert.equal(isZeroTime(zero), true, String(zero));
    assert.equal(isZeroTime('2024-06-01T12:00:00Z'), false);
  });
});
