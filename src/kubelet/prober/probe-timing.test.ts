import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probeTiming } from './probe-timing.js';

describe('probeTiming', () => {
  it("fills upstream's defaults, scaled by secondMs", () => {
    assert.deepEqual(probeTiming({}, 'readiness'), { initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(probeTiming({ initialDelaySeconds: 2, periodSeconds: 3, timeoutSeconds: 4, successThreshold: 2, failureThreshold: 5 }, 'readiness', 10), {
      initialDelayMs: 20,
      periodMs: 30,
      timeoutMs: 40,
      successThreshold: 2,
      failureThreshold: 5,
    });
  });

  it('treats 0 as unset and keeps successThreshold 1 for liveness and startup', () => {
    assert.equal(probeTiming({ periodSeconds: 0, successThreshold: 3 }, 'liveness').periodMs, 10_000);
    assert.equal(probeTiming({ successThreshold: 3 }, 'liveness').successThreshold, 1);
    assert.equal(probeTiming({ successThreshold: 3 }, 'startup').successThreshold, 1);
  });
});
