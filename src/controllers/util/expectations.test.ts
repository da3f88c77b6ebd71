import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControllerExpectations, UIDTrackingExpectations } from './expectations.js';

describe('ControllerExpectations', () => {
  it('a key never set is satisfied', () => {
    assert.equal(new ControllerExpectations().satisfied('ns/rs'), true);
  });

  it('creates are awaited until each is observed', () => {
    const e = new ControllerExpectations();
    e.expectCreations('ns/rs', 2);
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), true);
  });

  it('a failed create lowers what is expected', () => {
    const e = new ControllerExpectations();
    e.expectCreations('k', 3);
    e.lower('k', 3, 0);
    assert.equal(e.satisfied('k'), true);
    assert.deepEqual(e.pending('k'), { add: 0, del: 0 });
  });

  it('raise adds to what is expected; lower or raise of an unknown key does nothing', () => {
    const e = new ControllerExpectations();
    e.raise('none', 1, 1);
    e.lower('none', 1, 1);
    assert.equal(e.pending('none'), undefined);
    e.expectDeletions('k', 1);
    e.raise('k', 0, 1);
    e.deletionObserved('k');
    assert.equal(e.satisfied('k'), false);
    e.deletionObserved('k');
    assert.equal(e.satisfied('k'), true);
  });

  it('expectations expire after the timeout (a lost watch event cannot block a controller forever)', () => {
    let now = 1000;
    const e = new ControllerExpectations({ now: () => now, timeoutMs: 300_000 });
    e.expectCreations('k', 1);
    now += 300_000;
    assert.equal(e.satisfied('k'), false);
    now += 1;
    assert.equal(e.satisfied('k'), true);
  });

  it('delete forgets the key', () => {
    const e = new ControllerExpectations();
    e.expectCreations('k', 1);
    e.delete('k');
    assert.equal(e.satisfied('k'), true);
  });
});

describe('UIDTrackingExpectations', () => {
  it('only the deletion of an expected pod counts, and only once', () => {
    const e = new UIDTrackingExpectations();
    e.expectDeletionsOf('ns/rs', ['ns/a', 'ns/b']);
    e.deletionOfObserved('ns/rs', 'ns/other');
    assert.deepEqual(e.pending('ns/rs'), { add: 0, del: 2 });
    e.deletionOfObserved('ns/rs', 'ns/a');
    e.deletionOfObserved('ns/rs', 'ns/a');
    assert.deepEqual(e.pending('ns/rs'), { add: 0, del: 1 });
    assert.deepEqual(e.deletingPods('ns/rs'), ['ns/b']);
    e.deletionOfObserved('ns/rs', 'ns/b');
    assert.equal(e.satisfied('ns/rs'), true);
  });

  it('delete forgets the tracked pods too', () => {
    const e = new UIDTrackingExpectations();
    e.expectDeletionsOf('k', ['ns/a']);
    e.delete('k');
    assert.deepEqual(e.deletingPods('k'), []);
    e.deletionOfObserved('k', 'ns/a');
    assert.equal(e.pending('k'), undefined);
  });
});
