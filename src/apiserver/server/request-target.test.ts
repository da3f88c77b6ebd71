import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestTarget, plainTarget } from './request-target.js';

/** What the listener read before the fast path: new URL's pathname and searchParams. */
function viaUrl(target: string): { path: string; query: [string, string][] } {
  const url = new URL(target, 'https://apiserver');
  return { path: url.pathname, query: [...url.searchParams] };
}

function outcome<T>(read: () => T): T | string {
  try {
    return read();
  } catch (e: unknown) {
    return String(e);
  }
}

function parsed(target: string): { path: string; query: [string, string][] } {
  const { path, query } = parseRequestTarget(target);
  return { path, query: [...query] };
}

const PLAIN = [
  '/',
  '/api/v1/namespaces/default/pods',
  '/api/v1/namespaces/default/pods?fieldManager=kubectl-client-side-apply&fieldValidation=Strict',
  '/apis/apps/v1/deployments?watch=true&resourceVersion=12&allowWatchBookmarks=true',
  '/api/v1/pods?labelSelector=app%3Dweb%2Ctier+in+(a,b)&limit=500',
  "/api/v1/namespaces/ns/pods/web.1:x@y!$&'()*+,;=~_-",
  '/api/v1/nodes/a..b/proxy/',
  '/healthz?verbose',
  '/api/v1/pods?',
  '/api/v1/pods?a=1&a=2&b&=c&d=',
  '/api/v1/pods?q=%zz%&x=%2',
  '/api/v1/pods?q="<>\'{}|^`',
  '/api/v1/pods?q=a?b',
  '/api/v1/pods//x',
];

/** Targets the URL parser changes (or may): they go to new URL. */
const UNUSUAL = [
  '/api/v1/namespaces/default/pods/../secrets',
  '/api/v1/./pods',
  '/api/v1/pods/.',
  '/.well-known/openid-configuration',
  '/api/v1/pods/%2e%2e/x',
  '/api/v1/namespaces/system%3Anode/pods',
  '/api/v1/pods#fragment',
  '/api/v1/pods?x=1#fragment',
  '/api/v1/pods\\x',
  '/api/v1/pods with space',
  '/api/v1/pods/caf\u00e9',
  '/api/v1/pods?q=caf\u00e9',
  '/api/v1/pods?q=a b',
  '/api/v1/pods??x=1',
  '/api/v1/pods{x}',
  '/api/v1/pods\tx',
  '//evil.example/api',
  '*',
  'https://apiserver/api/v1/pods?x=1',
  'api/v1/pods',
  '',
];

describe('parseRequestTarget', () => {
  it('reads plain targets as new URL does', () => {
    for (const target of PLAIN) assert.deepEqual(parsed(target), viaUrl(target), target);
  });

  it('gives targets the URL parser may change to new URL, with the same result', () => {
    for (const target of UNUSUAL) assert.deepEqual(parsed(target), viaUrl(target), target);
  });

  it('splits plain targets by hand and leaves the others to new URL', () => {
    for (const target of PLAIN) {
      const fast = plainTarget(target);
      assert.ok(fast !== undefined, target);
      assert.deepEqual({ path: fast.path, query: [...fast.query] }, viaUrl(target), target);
    }
    for (const target of UNUSUAL) assert.equal(plainTarget(target), undefined, target);
  });

  it('agrees with new URL on random targets of plain and unusual characters', () => {
    const alphabet = ['/', '/', 'a', 'Z', '9', '.', '..', '%', '%2e', '%41', '?', '&', '=', '+', '#', ' ', '\\', ':', '@', "'", '"', '~', '\u00e9', '\t', '{'];
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 5000; i++) {
      let target = '/';
      for (let n = random(12); n > 0; n--) target += alphabet[random(alphabet.length)];
      // Some of them are no URL at all ('/\\' starts an authority): both ways then throw the same error.
      assert.deepEqual(outcome(() => parsed(target)), outcome(() => viaUrl(target)), JSON.stringify(target));
    }
  });
});
