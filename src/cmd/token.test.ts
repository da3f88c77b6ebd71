import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTokenTable } from './token.js';

describe('k8ts token list', () => {
  it("prints kubeadm's columns", () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const table = formatTokenTable(
      [
        { token: { id: 'abcdef', secret: '0123456789abcdef' }, expires: new Date('2026-01-02T00:00:00Z'), description: 'join', usages: ['authentication', 'signing'], extraGroups: ['system:bootstrappers:k8ts:default-node-token'] },
        { token: { id: 'zzzzzz', secret: '0123456789abcdef' }, usages: ['authentication'], extraGroups: [] },
        { token: { id: 'yyyyyy', secret: '0123456789abcdef' }, expires: new Date('2025-01-01T00:00:00Z'), usages: [], extraGroups: [] },
      ],
      now,
    );
    const lines = table.trimEnd().split('\n');
    assert.match(lines[0]!, /^TOKEN +TTL +EXPIRES +USAGES +DESCRIPTION +EXTRA GROUPS$/);
    assert.match(lines[1]!, /^abcdef\.0123456789abcdef +24h0m0s +2026-01-02T00:00:00Z +authentication,signing +join +system:bootstrappers:k8ts:default-node-token$/);
    assert.match(lines[2]!, /^zzzzzz\.0123456789abcdef +<forever> +<never> +authentication +<none> *$/);
    assert.match(lines[3]!, /^yyyyyy\.\S+ +<invalid> +2025-01-01T00:00:00Z/);
  });
});
