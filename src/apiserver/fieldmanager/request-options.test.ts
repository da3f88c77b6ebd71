import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import { managerFromUserAgent, parseManagerOptions } from './request-options.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

describe('field manager request options', () => {
  it('takes the manager from fieldManager, else from the User-Agent', () => {
    assert.equal(parseManagerOptions(q('fieldManager=kubectl-edit'), 'kubectl/v1.33.0', 'UpdateOptions').manager, 'kubectl-edit');
    assert.equal(parseManagerOptions(q(''), 'kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/abc', 'UpdateOptions').manager, 'kube-controller-manager');
    assert.equal(managerFromUserAgent(undefined), '');
    // The part before the first '/', as split('/')[0]: all of it without one, '' when it starts with one.
    for (const agent of ['', 'h2load nghttp2/1.52.0', 'no-slash', '/v1', 'a//b', 'kubectl/']) {
      assert.equal(managerFromUserAgent(agent), agent.split('/')[0], agent);
    }
    assert.equal(parseManagerOptions(q('fieldManager=a&force=true'), undefined, 'PatchOptions', { apply: true }).force, true);
    assert.equal(parseManagerOptions(q('fieldManager=a&force=false'), undefined, 'PatchOptions', { apply: true }).force, false);
  });

  it('rejects what upstream rejects, as a 422 of the options kind', () => {
    const cases: Array<[string, 'CreateOptions' | 'PatchOptions', boolean, string]> = [
      ['', 'PatchOptions', true, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'],
      ['force=true', 'PatchOptions', false, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'],
      [`fieldManager=${'x'.repeat(129)}`, 'CreateOptions', false, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'],
    ];
    for (const [query, kind, apply, message] of cases) {
      assert.throws(
        () => parseManagerOptions(q(query), undefined, kind, { apply }),
        (e: unknown) => e instanceof StatusError && e.status.code === 422 && e.status.message === message,
      );
    }
  });
});
