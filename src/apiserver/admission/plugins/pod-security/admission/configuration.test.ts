import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { levelVersionString } from '../api/level-version.js';
import { completeConfiguration } from './configuration.js';

describe('PodSecurity configuration', () => {
  it('defaults to privileged:latest everywhere and no exemptions', () => {
    const c = completeConfiguration();
    assert.equal(levelVersionString(c.defaultPolicy.enforce), 'privileged:latest');
    assert.equal(levelVersionString(c.defaultPolicy.warn), 'privileged:latest');
    assert.equal(c.exemptNamespaces.size + c.exemptUsernames.size + c.exemptRuntimeClasses.size, 0);
  });
  it('reads defaults and exemptions', () => {
    const c = completeConfiguration({ defaults: { enforce: 'baseline', 'enforce-version': 'v1.30', warn: 'restricted' }, exemptions: { namespaces: ['kube-system'] } });
    assert.equal(levelVersionString(c.defaultPolicy.enforce), 'baseline:v1.30');
    assert.equal(levelVersionString(c.defaultPolicy.warn), 'restricted:latest');
    assert.equal(c.exemptNamespaces.has('kube-system'), true);
  });
  it('refuses bad levels, versions and empty exemptions', () => {
    assert.throws(() => completeConfiguration({ defaults: { audit: 'strict' } }), /defaults.audit: Invalid value: "strict": must be one of privileged, baseline, restricted/);
    assert.throws(() => completeConfiguration({ defaults: { 'warn-version': '1.30' } }), /defaults.warn-version: Invalid value: "1.30": must be "latest" or "v1.x"/);
    assert.throws(() => completeConfiguration({ exemptions: { usernames: [''] } }), /exemptions.usernames\[0\]/);
  });
});
