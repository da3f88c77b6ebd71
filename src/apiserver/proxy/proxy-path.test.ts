import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backendPath, escapePath, requestedProxyPath } from './proxy-path.js';

const info = (path: string, parts: string[]) => ({ path, parts });

describe('requestedProxyPath', () => {
  it('takes the segments after the subresource, with a leading and the request’s trailing slash', () => {
    assert.equal(requestedProxyPath(info('/api/v1/namespaces/d/pods/web/proxy/a/b', ['pods', 'web', 'proxy', 'a', 'b']), new URLSearchParams()), '/a/b');
    assert.equal(requestedProxyPath(info('/api/v1/namespaces/d/pods/web/proxy/a/', ['pods', 'web', 'proxy', 'a']), new URLSearchParams()), '/a/');
    assert.equal(requestedProxyPath(info('/api/v1/nodes/n/proxy/', ['nodes', 'n', 'proxy']), new URLSearchParams()), '/');
    assert.equal(requestedProxyPath(info('/api/v1/nodes/n/proxy', ['nodes', 'n', 'proxy']), new URLSearchParams()), '');
  });

  it('reads ?path= when the URL names no path', () => {
    assert.equal(requestedProxyPath(info('/api/v1/nodes/n/proxy', ['nodes', 'n', 'proxy']), new URLSearchParams('path=healthz')), '/healthz');
    assert.equal(requestedProxyPath(info('/api/v1/nodes/n/proxy', ['nodes', 'n', 'proxy']), new URLSearchParams('path=/a/b/')), '/a/b/');
    // The URL's own path wins.
    assert.equal(requestedProxyPath(info('/api/v1/nodes/n/proxy/x', ['nodes', 'n', 'proxy', 'x']), new URLSearchParams('path=/y')), '/x');
  });
});

describe('backendPath', () => {
  it('cleans the path as path.Join does and keeps the trailing slash', () => {
    assert.equal(backendPath('/a/b', '/p/a/b'), '/a/b');
    assert.equal(backendPath('/a/b/', '/p/a/b/'), '/a/b/');
    assert.equal(backendPath('/a/../../etc/./x', '/p'), '/etc/x');
    assert.equal(backendPath('/', '/p/'), '/');
  });

  it('leaves the root empty (to be redirected) unless the request ends with a slash', () => {
    assert.equal(backendPath('', '/api/v1/nodes/n/proxy'), '');
    assert.equal(backendPath('', '/api/v1/nodes/n/proxy/'), '/');
  });
});

describe('escapePath', () => {
  it('escapes what would end or split the path and keeps the rest', () => {
    assert.equal(escapePath('/a b/c?d#e/f:g@h'), '/a%20b/c%3Fd%23e/f:g@h');
    assert.equal(escapePath('/metrics/cadvisor'), '/metrics/cadvisor');
  });
});
