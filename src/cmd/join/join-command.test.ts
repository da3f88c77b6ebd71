import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatJoinCommand, parseJoinCommand } from './join-command.js';

describe('the join command line', () => {
  it('is `k8ts agent --server … --token … --ca-cert-hash sha256:…`, and reads back', () => {
    const o = { server: 'https://127.0.0.1:6443', token: 'abcdef.0123456789abcdef', caCertHash: `sha256:${'a'.repeat(64)}` };
    const line = formatJoinCommand(o);
    assert.equal(line, `k8ts agent --server https://127.0.0.1:6443 --token abcdef.0123456789abcdef --ca-cert-hash sha256:${'a'.repeat(64)}`);
    assert.deepEqual(parseJoinCommand(`  ${line}`), o);
    assert.equal(parseJoinCommand('k8ts agent --server x'), undefined);
  });
});
