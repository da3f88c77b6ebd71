import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { onStopSignal } from './stop-signal.js';

describe('onStopSignal', () => {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    it(`resolves on ${signal}, once`, async () => {
      const fakeProcess = new EventEmitter();
      const stop = onStopSignal(fakeProcess as unknown as NodeJS.Process);
      assert.equal(stop.stopping(), false);
      fakeProcess.emit(signal);
      fakeProcess.emit('SIGINT');
      await stop.stopped;
      assert.equal(stop.stopping(), true);
    });
  }
});
