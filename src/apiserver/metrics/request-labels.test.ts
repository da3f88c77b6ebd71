import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestInfo } from '../server/request-info.js';
import { cleanDryRun, cleanScope, isLongRunning, isMutating, reportedVerb } from './request-labels.js';

function labels(method: string, url: string, contentType?: string): { verb: string; scope: string } {
  const u = new URL(url, 'https://apiserver');
  const info = parseRequestInfo(method, u.pathname, u.searchParams);
  const scope = cleanScope(info);
  return { verb: reportedVerb(method, info, scope, contentType), scope };
}

describe('request metric labels (upstream CleanScope, CanonicalVerb, CleanVerb)', () => {
  const cases: [method: string, url: string, contentType: string | undefined, verb: string, scope: string][] = [
    ['GET', '/api/v1/namespaces', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/namespaces/default', undefined, 'GET', 'resource'],
    ['GET', '/api/v1/pods', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/namespaces/default/pods', undefined, 'LIST', 'namespace'],
    ['HEAD', '/api/v1/namespaces/default/pods', undefined, 'LIST', 'namespace'],
    ['GET', '/api/v1/namespaces/default/pods/web', undefined, 'GET', 'resource'],
    ['GET', '/api/v1/namespaces/default/pods?watch=true', undefined, 'WATCH', 'namespace'],
    ['GET', '/api/v1/namespaces/default/pods?watch=1', undefined, 'WATCH', 'namespace'],
    ['GET', '/api/v1/namespaces/default/pods?watch=false', undefined, 'LIST', 'namespace'],
    ['GET', '/api/v1/watch/namespaces/default/pods', undefined, 'WATCH', 'namespace'],
    ['GET', '/apis/apps/v1/deployments?watch=true', undefined, 'WATCH', 'cluster'],
    ['POST', '/api/v1/namespaces/default/pods', 'application/json', 'POST', 'resource'],
    ['POST', '/api/v1/namespaces', 'application/json', 'POST', 'resource'],
    ['PUT', '/api/v1/namespaces/default/pods/web', 'application/json', 'PUT', 'resource'],
    ['PUT', '/api/v1/namespaces/default/pods/web/status', 'application/json', 'PUT', 'resource'],
    ['PATCH', '/api/v1/namespaces/default/pods/web', 'application/merge-patch+json', 'PATCH', 'resource'],
    ['PATCH', '/api/v1/namespaces/default/pods/web', 'application/apply-patch+yaml', 'APPLY', 'resource'],
    ['DELETE', '/api/v1/namespaces/default/pods/web', undefined, 'DELETE', 'resource'],
    ['DELETE', '/api/v1/namespaces/default/pods', undefined, 'DELETE', 'namespace'],
    ['GET', '/api/v1/namespaces/default/pods/web/log', undefined, 'CONNECT', 'resource'],
    ['POST', '/api/v1/namespaces/default/pods/web/exec', undefined, 'CONNECT', 'resource'],
    ['GET', '/healthz', undefined, 'GET', ''],
    ['GET', '/apis', undefined, 'GET', ''],
    ['GET', '/api/v1', undefined, 'GET', ''],
    ['OPTIONS', '/api/v1/namespaces', undefined, 'other', 'cluster'],
    ['BREW', '/healthz', undefined, 'other', ''],
  ];
  for (const [method, url, contentType, verb, scope] of cases) {
    it(`${method} ${url}${contentType === undefined ? '' : ` (${contentType})`} → ${verb}, scope "${scope}"`, () => {
      assert.deepEqual(labels(method, url, contentType), { verb, scope });
    });
  }

  it('dry_run is empty, All, or invalid', () => {
    assert.equal(cleanDryRun(new URLSearchParams('')), '');
    assert.equal(cleanDryRun(new URLSearchParams('dryRun=All')), 'All');
    assert.equal(cleanDryRun(new URLSearchParams('dryRun=All&dryRun=All')), 'All');
    assert.equal(cleanDryRun(new URLSearchParams('dryRun=Some')), 'invalid');
    assert.equal(cleanDryRun(new URLSearchParams('dryRun=')), 'invalid');
  });

  it('long-running: watches and the streaming subresources; mutating: all but get, list, watch', () => {
    const info = (method: string, url: string) => {
      const u = new URL(url, 'https://apiserver');
      return parseRequestInfo(method, u.pathname, u.searchParams);
    };
    assert.equal(isLongRunning(info('GET', '/api/v1/pods?watch=1')), true);
    assert.equal(isLongRunning(info('GET', '/api/v1/namespaces/a/pods/p/log')), true);
    assert.equal(isLongRunning(info('POST', '/api/v1/namespaces/a/pods/p/exec')), true);
    assert.equal(isLongRunning(info('GET', '/api/v1/namespaces/a/pods/p/status')), false);
    assert.equal(isLongRunning(info('GET', '/api/v1/pods')), false);
    assert.equal(isMutating(info('GET', '/api/v1/pods')), false);
    assert.equal(isMutating(info('GET', '/api/v1/namespaces/a/pods/p')), false);
    assert.equal(isMutating(info('POST', '/api/v1/namespaces/a/pods')), true);
    assert.equal(isMutating(info('DELETE', '/api/v1/namespaces/a/pods')), true);
    assert.equal(isMutating(info('GET', '/healthz')), false);
    assert.equal(isMutating(info('POST', '/healthz')), true);
  });
});
