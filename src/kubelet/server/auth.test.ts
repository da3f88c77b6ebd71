import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fineGrained, nodeRequestAttributes } from './auth.js';

describe('nodeRequestAttributes (what the kubelet asks a SubjectAccessReview for)', () => {
  it('maps paths to upstream’s node subresources: stats, metrics, log, checkpoint, and proxy for the rest', () => {
    const table: [string, string][] = [
      ['/stats/summary', 'stats'],
      ['/stats', 'stats'],
      ['/metrics', 'metrics'],
      ['/metrics/cadvisor', 'metrics'],
      ['/logs/syslog', 'log'],
      ['/checkpoint/default/web/main', 'checkpoint'],
      ['/healthz', 'proxy'],
      ['/pods', 'proxy'],
      ['/containerLogs/default/web/main', 'proxy'],
      ['/exec/default/web/main', 'proxy'],
      ['/statsx', 'proxy'],
    ];
    for (const [path, subresource] of table) assert.deepEqual(nodeRequestAttributes('GET', path), [{ verb: 'get', subresource }], path);
  });

  it('maps methods to verbs as upstream: HEAD and OPTIONS get the empty verb', () => {
    const verbs = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => nodeRequestAttributes(m, '/pods')[0]!.verb);
    assert.deepEqual(verbs, ['create', 'get', 'update', 'patch', 'delete', '', '']);
  });

  it('checks /healthz, /configz, /statusz and /pods for their own subresource first', () => {
    assert.deepEqual(['/healthz', '/healthz/ping', '/configz', '/statusz', '/pods', '/runningpods/', '/metrics'].map(fineGrained), ['healthz', 'healthz', 'configz', 'statusz', 'pods', 'pods', undefined]);
  });
});
